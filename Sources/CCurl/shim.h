#ifndef LEDGER_CCURL_SHIM_H
#define LEDGER_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed function each. */

static inline CURLcode ledger_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ledger_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ledger_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ledger_curl_set_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*ledger_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode ledger_curl_set_callback(CURL *handle, CURLoption option, ledger_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ledger_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
#endif
