/// A certificate subject or issuer name to build: attributes such as `CN` and `O`, in order.
public struct DistinguishedName: Hashable, Sendable {
    /// One attribute: a short name or dotted OID (`CN`, `O`, `OU`, `C`) and its UTF-8 value.
    public struct Attribute: Hashable, Sendable {
        /// The attribute type, e.g. `CN`.
        public var type: String
        /// The attribute value.
        public var value: String

        /// Creates an attribute.
        public init(_ type: String, _ value: String) {
            self.type = type
            self.value = value
        }
    }

    /// The attributes, encoded in this order.
    public var attributes: [Attribute]

    /// Creates a name from attributes.
    public init(_ attributes: [Attribute]) { self.attributes = attributes }

    /// A name with the usual attributes (those left nil are omitted).
    public init(
        commonName: String, organizationalUnit: String? = nil, organization: String? = nil,
        country: String? = nil
    ) {
        var attributes = [Attribute("CN", commonName)]
        if let organizationalUnit { attributes.append(Attribute("OU", organizationalUnit)) }
        if let organization { attributes.append(Attribute("O", organization)) }
        if let country { attributes.append(Attribute("C", country)) }
        self.attributes = attributes
    }
}
