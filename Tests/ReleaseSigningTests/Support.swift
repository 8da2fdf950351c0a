import Foundation
import ReleaseSystem
import XCTest

/// A temporary directory removed when the value goes away.
final class Scratch {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("signing-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  @discardableResult
  func write(_ name: String, _ text: String) throws -> String {
    try Data(text.utf8).write(to: url.appendingPathComponent(name))
    return path(name)
  }

  func read(_ name: String) throws -> String {
    try String(decoding: Data(contentsOf: url.appendingPathComponent(name)), as: UTF8.self)
  }

  /// Runs a command in this directory; `stdin` names a file of it to read standard input from.
  func run(_ program: String, _ arguments: [String], stdin: String? = nil) throws -> ProcessResult {
    var invocation = ProcessInvocation(program, arguments, in: url)
    if let stdin {
      // ProcessInvocation has no standard input: the shell redirects it, the arguments stay
      // positional parameters so nothing is quoted by hand.
      invocation = ProcessInvocation(
        "/bin/sh", ["-c", "exec \"$0\" \"$@\" < \"$STDIN_FILE\"", program] + arguments, in: url,
        environment: ProcessInfo.processInfo.environment.merging(["STDIN_FILE": path(stdin)]) { $1 })
    }
    return try SystemProcessRunner().run(invocation)
  }

  /// Runs a command that must succeed; its standard output.
  func succeed(
    _ program: String, _ arguments: [String], stdin: String? = nil, file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> String {
    let result = try run(program, arguments, stdin: stdin)
    XCTAssertEqual(
      result.exitCode, 0, "\(program) \(arguments): \(result.standardError)", file: file, line: line)
    return result.standardOutput
  }
}

extension Data {
  init(hex: String) {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      bytes.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    self.init(bytes)
  }

  var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// A PKCS#8 PEM of a raw seed, built here from RFC 8410's layout so test vectors go in through
/// the same parser as real keys.
func privateKeyPEM(seedHex: String) -> String {
  let der = Data(hex: "302e020100300506032b657004220420" + seedHex)
  return "-----BEGIN PRIVATE KEY-----\n\(der.base64EncodedString())\n-----END PRIVATE KEY-----\n"
}
