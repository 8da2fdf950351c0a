import Foundation

/// Reads a model file's Core ML specification version without compiling the model, which is
/// how Core ML would read it. The version is field 1 (a varint) of the `Model`
/// protobuf message; Core ML's serializers write fields in number order, so a model file
/// starts with it. The rest of the top-level message is walked too (length-delimited fields
/// are skipped, not parsed), so a truncated download is caught as well.
enum CoreMLModelHeader {
  enum ReadError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case notCoreMLModel(path: String, reason: String)

    var description: String {
      switch self {
      case .unreadable(let path, let reason): return "\(path): cannot read: \(reason)"
      case .notCoreMLModel(let path, let reason): return "\(path): not a Core ML model: \(reason)"
      }
    }
  }

  static func specificationVersion(ofModelAt url: URL) throws -> Int {
    let bytes: Data
    do {
      // Mapped, not read: downloaded models can be large and only their framing is looked at.
      bytes = try Data(contentsOf: url, options: .alwaysMapped)
    } catch {
      throw ReadError.unreadable(path: url.path, reason: error.localizedDescription)
    }
    do {
      return try specificationVersion(in: bytes)
    } catch let problem as FormatProblem {
      throw ReadError.notCoreMLModel(path: url.path, reason: problem.reason)
    }
  }

  struct FormatProblem: Error {
    let reason: String
  }

  static func specificationVersion(in bytes: Data) throws -> Int {
    try bytes.withUnsafeBytes { buffer in
      var reader = ProtobufReader(bytes: buffer)
      guard reader.readVarint() == specificationVersionTag else {
        throw FormatProblem(reason: "does not start with field 1 (specificationVersion) as a varint")
      }
      guard let version = reader.readVarint(), (1...UInt64(Int32.max)).contains(version) else {
        throw FormatProblem(reason: "specificationVersion is not a positive 32-bit integer")
      }
      while !reader.isAtEnd {
        if let problem = reader.skipField() { throw FormatProblem(reason: problem) }
      }
      return Int(version)
    }
  }

  /// Field number 1, wire type 0 (varint).
  private static let specificationVersionTag: UInt64 = 1 << 3 | 0
}

private struct ProtobufReader {
  let bytes: UnsafeRawBufferPointer
  var offset = 0

  var isAtEnd: Bool { offset >= bytes.count }

  mutating func readVarint() -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while offset < bytes.count && shift < 64 {
      let byte = bytes[offset]
      offset += 1
      value |= UInt64(byte & 0x7f) << shift
      if byte & 0x80 == 0 { return value }
      shift += 7
    }
    return nil
  }

  /// Skips one top-level field; returns what is wrong when the bytes are not a valid field.
  mutating func skipField() -> String? {
    guard let tag = readVarint() else { return "truncated field tag at byte \(offset)" }
    guard tag >> 3 != 0 else { return "field number 0 at byte \(offset)" }
    switch tag & 7 {
    case 0:
      return readVarint() == nil ? "truncated varint at byte \(offset)" : nil
    case 1:
      return skip(8)
    case 2:
      guard let length = readVarint() else { return "truncated length at byte \(offset)" }
      return skip(length)
    case 5:
      return skip(4)
    default:
      return "unsupported wire type \(tag & 7) at byte \(offset)"
    }
  }

  private mutating func skip(_ count: UInt64) -> String? {
    guard count <= UInt64(bytes.count - offset) else {
      return "field of \(count) bytes runs past the end of the file at byte \(offset)"
    }
    offset += Int(count)
    return nil
  }
}
