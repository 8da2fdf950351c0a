import Foundation

/// The smallest file the SDK treats as a Core ML model: a `Model` protobuf message with
/// `specificationVersion` (field 1) and a `description` (field 2) declaring one input named `x`.
enum CoreMLTestModel {
  static func bytes(specificationVersion: Int) -> Data {
    let input = lengthDelimited(field: 1, lengthDelimited(field: 1, Data("x".utf8)))
    return varintField(1, UInt64(specificationVersion)) + lengthDelimited(field: 2, input)
  }

  private static func varintField(_ field: UInt64, _ value: UInt64) -> Data {
    varint(field << 3) + varint(value)
  }

  private static func lengthDelimited(field: UInt64, _ payload: Data) -> Data {
    varint(field << 3 | 2) + varint(UInt64(payload.count)) + payload
  }

  private static func varint(_ value: UInt64) -> Data {
    var bytes = Data()
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(rest & 0x7f) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
    return bytes
  }
}
