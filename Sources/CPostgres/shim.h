// libpq, PostgreSQL's client library (Debian: libpq-dev). Only LedgerPostgres imports this module.
#include <libpq-fe.h>
