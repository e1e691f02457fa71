import LedgerJSON

/// A JWS in compact serialization (`header.payload.signature`, each base64url), split and decoded
/// but not yet verified.
public struct CompactJWS: Sendable {
  /// The largest JWS accepted, in bytes (1 MiB, the webhook's body limit).
  public static let maximumByteCount = 1 << 20

  /// The decoded JOSE header (a JSON object).
  public let header: JSONObject
  /// The decoded payload (a JSON object).
  public let payload: JSONObject
  /// The decoded signature bytes.
  public let signature: [UInt8]
  /// The bytes the signature covers: `base64url(header) "." base64url(payload)`.
  public let signingInput: ArraySlice<UInt8>

  /// Splits and decodes `text`. Anything but three base64url segments whose first two are JSON
  /// objects is `INVALID_JWT_FORMAT`.
  public init(_ text: String) throws(VerificationError) {
    let bytes = Array(text.utf8)
    guard bytes.count <= Self.maximumByteCount else {
      throw VerificationError(
        .invalidJWTFormat,
        "the JWS is \(bytes.count) bytes, over the \(Self.maximumByteCount)-byte limit")
    }
    guard !bytes.isEmpty else {
      throw VerificationError(
        .invalidJWTFormat, "the JWS is empty; expected header.payload.signature")
    }
    var dots: [Int] = []
    for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") {
      dots.append(index)
      if dots.count > 2 { break }
    }
    guard dots.count == 2 else {
      throw VerificationError(
        .invalidJWTFormat,
        "the text is not a compact JWS: expected 3 dot-separated segments, found \(dots.count > 2 ? "more" : String(dots.count + 1))"
      )
    }
    let headerText = bytes[..<dots[0]]
    let payloadText = bytes[(dots[0] + 1)..<dots[1]]
    let signatureText = bytes[(dots[1] + 1)...]
    self.header = try Self.decodeObject(headerText, segment: "header")
    self.payload = try Self.decodeObject(payloadText, segment: "payload")
    guard let signature = Base64.decodeURL(signatureText) else {
      throw VerificationError(.invalidJWTFormat, "the JWS signature segment is not base64url")
    }
    self.signature = signature
    self.signingInput = bytes[..<dots[1]]
  }

  private static func decodeObject(_ text: ArraySlice<UInt8>, segment: String)
    throws(VerificationError)
    -> JSONObject
  {
    guard let bytes = Base64.decodeURL(text) else {
      throw VerificationError(.invalidJWTFormat, "the JWS \(segment) segment is not base64url")
    }
    let value: JSONValue
    do {
      value = try JSONValue.parse(
        bytes, limits: JSONLimits(maxBytes: maximumByteCount, maxDepth: 32))
    } catch {
      throw VerificationError(
        .invalidJWTFormat, "the JWS \(segment) is not JSON: \(error.message)", cause: error)
    }
    guard let object = value.object else {
      throw VerificationError(.invalidJWTFormat, "the JWS \(segment) is not a JSON object")
    }
    return object
  }
}
