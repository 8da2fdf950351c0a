import Foundation

/// What of a failed build's log is shown beside the failure.
///
/// The end of a `swift test` log is Swift Testing's empty run and XCTest's totals, which say
/// that something failed but not what; the compiler's and XCTest's `error:` lines (and Swift
/// Testing's `✘` lines) say what. So the excerpt is those lines first, then the log's end.
package enum LogExcerpt {
  /// At most this many error lines are shown before the tail: the first ones, since a
  /// compiler's later errors are mostly consequences of its first.
  static let errorLineLimit = 10
  /// Only the log's last bytes are read, so a huge log costs little.
  static let readLimit: UInt64 = 1 << 20

  /// The error lines of the log's last `readLimit` bytes not already in its last `tail`
  /// lines, then those lines.
  package static func failure(of url: URL, tail: Int) -> [String] {
    let lines = lastLines(of: url)
    let end = Array(lines.suffix(tail))
    let errors = lines.dropLast(end.count).filter(isError).prefix(errorLineLimit)
    return errors.isEmpty ? end : Array(errors) + ["…"] + end
  }

  /// `path:line: error: …` from the compiler and XCTest, `✘ …` from Swift Testing.
  private static func isError(_ line: String) -> Bool {
    line.contains(": error: ") || line.hasPrefix("✘ ")
  }

  private static func lastLines(of url: URL) -> [String] {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return [] }
    defer { try? handle.close() }
    let size = (try? handle.seekToEnd()) ?? 0
    try? handle.seek(toOffset: size > readLimit ? size - readLimit : 0)
    let text = String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    // A read that starts mid-file starts mid-line.
    if size > readLimit { lines.removeFirst() }
    return lines
  }
}
