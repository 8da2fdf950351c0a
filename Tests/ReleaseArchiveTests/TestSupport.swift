import Foundation
import XCTest

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("ReleaseArchiveTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func remove() { try? FileManager.default.removeItem(at: url) }

  func path(_ relative: String) -> URL { url.appendingPathComponent(relative) }

  /// Creates `relative` with `contents` (and its parent directories).
  @discardableResult
  func file(_ relative: String, _ contents: String = "", permissions: Int = 0o644) throws -> URL {
    try file(relative, data: Data(contents.utf8), permissions: permissions)
  }

  @discardableResult
  func file(_ relative: String, data: Data, permissions: Int = 0o644) throws -> URL {
    let target = path(relative)
    try FileManager.default.createDirectory(
      at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: target)
    try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: target.path)
    return target
  }

  func directory(_ relative: String) throws {
    try FileManager.default.createDirectory(at: path(relative), withIntermediateDirectories: true)
  }
}

/// Every path under `directory`, sorted: a before/after snapshot shows anything written there.
func listing(of directory: URL) -> [String] {
  (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []).sorted()
}

/// Runs a program found on PATH and returns its standard output; a missing program or a
/// non-zero exit fails the calling test (these tools are part of the test environment).
func runTool(_ program: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line)
  throws -> String
{
  // Standard error goes to a file, so neither stream can fill a pipe and block the child.
  let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
  try Data().write(to: errorFile)
  defer { try? FileManager.default.removeItem(at: errorFile) }
  let errorHandle = try FileHandle(forWritingTo: errorFile)
  defer { try? errorHandle.close() }

  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [program] + arguments
  let output = Pipe()
  process.standardOutput = output
  process.standardError = errorHandle
  try process.run()
  let standardOutput = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  if process.terminationStatus != 0 {
    let standardError = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
    XCTFail(
      "\(program) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(standardError)\(standardOutput)",
      file: file, line: line)
  }
  return standardOutput
}

/// Runs a Python 3 script (`python3 -c`) with arguments and decodes its JSON output.
func python<T: Decodable>(
  _ type: T.Type, _ script: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line
) throws -> T {
  let output = try runTool("python3", ["-c", script] + arguments, file: file, line: line)
  return try JSONDecoder().decode(T.self, from: Data(output.utf8))
}

/// `sha256sum`'s digest of a file (`shasum -a 256` on macOS, which lacks it): an
/// implementation independent of the code under test.
func sha256sum(_ url: URL) throws -> String {
  #if os(Linux)
    String(try runTool("sha256sum", [url.path]).prefix(64))
  #else
    String(try runTool("shasum", ["-a", "256", url.path]).prefix(64))
  #endif
}

/// Peak resident memory since the last `resetPeakResidentBytes`, in bytes.
func peakResidentBytes() -> Int64 {
  #if os(Linux)
    return procStatusBytes("VmHWM")
  #else
    var usage = rusage()
    getrusage(RUSAGE_SELF, &usage)
    return Int64(usage.ru_maxrss)  // bytes on Darwin
  #endif
}

/// Current resident memory in bytes (on Darwin, where it cannot be reset, the peak so far).
func residentBytes() -> Int64 {
  #if os(Linux)
    return procStatusBytes("VmRSS")
  #else
    return peakResidentBytes()
  #endif
}

/// Resets the kernel's peak-RSS counter where possible (Linux), so the next peak reflects
/// only what follows; elsewhere the peak stays cumulative, which only makes the bound stricter.
func resetPeakResidentBytes() {
  #if os(Linux)
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
  #endif
}

#if os(Linux)
  private func procStatusBytes(_ field: String) -> Int64 {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
      let kilobytes = fields.dropFirst().first.flatMap { Int64($0) } ?? 0
      return kilobytes * 1024
    }
    XCTFail("/proc/self/status has no \(field)")
    return 0
  }
#endif
