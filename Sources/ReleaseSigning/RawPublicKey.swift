import Foundation

extension PublicKey {
  /// A key from its raw 32 bytes, as root documents and packages carry it (base64 decoded).
  public init(rawRepresentation: Data) throws(KeyError) {
    try self.init(raw: rawRepresentation)
  }
}
