import Foundation

/// Model files changed in place by tests.
package enum ModelFiles {
  /// Appends an unknown length-delimited protobuf field: the file stays a valid Core ML
  /// model (readers skip unknown fields) but its bytes, and so its SHA-256, change.
  package static func touchModel(_ url: URL) throws {
    let payload = Data("changed by test".utf8)
    var field = varint((9001 << 3) | 2)  // field 9001, wire type 2 (length-delimited)
    field.append(varint(payload.count))
    field.append(payload)
    let handle = try FileHandle(forWritingTo: url)
    try handle.seekToEnd()
    handle.write(field)
    try handle.close()
  }

  package static func varint(_ value: Int) -> Data {
    var value = value
    var bytes = Data()
    repeat {
      bytes.append(UInt8(value & 0x7F) | (value > 0x7F ? 0x80 : 0))
      value >>= 7
    } while value > 0
    return bytes
  }
}
