import CArchive
import Foundation

/// Failures writing, reading or vetting a zip. Each renders as one line that names the archive
/// (or input file), the entry, and what was found against what was expected. Plain file-system
/// failures around an archive (unreadable input, uncreatable directory) are `SystemError`s.
public enum ArchiveError: Error, CustomStringConvertible, Equatable, Sendable {
  // Writing.
  case notADirectory(path: String)
  case invalidTopLevelName(archive: String, name: String)
  case unsupportedFileType(path: String, found: String)
  /// `readSize` is what was read before giving up, so at least what the file then held.
  case inputChanged(path: String, listedSize: Int64, readSize: Int64)
  /// libarchive refused an operation; `message` is its `archive_error_string`.
  case libarchive(archive: String, entry: String?, operation: String, message: String)

  // Reading and vetting.
  case absolutePath(archive: String, entry: String)
  case escapingPath(archive: String, entry: String)
  case unnormalisedPath(archive: String, entry: String)
  case unsafeEntryType(archive: String, entry: String, found: ZipEntry.Kind)
  /// `found` lists the top-level names, directories with a trailing `/`.
  case notOneTopLevelDirectory(archive: String, found: [String])
  /// The same name twice: which one a reader gets is up to the reader.
  case duplicateEntry(archive: String, entry: String)
  /// Two names that one file system stores as one file (case folding, Unicode normalisation).
  case collidingNames(archive: String, entry: String, other: String)
  /// A control character (C0, DEL, C1) in a name: shown to people, it can rewrite a terminal.
  case controlCharacter(archive: String, entry: String)
  case tooManyEntries(archive: String, limit: Int)
  case tooLarge(archive: String, limit: Int64)
  /// `read` is what the data held; when it exceeds `declared`, reading stopped there.
  case sizeMismatch(archive: String, entry: String, declared: Int64, read: Int64)
  case destinationExists(path: String)

  public var description: String {
    switch self {
    case .notADirectory(let path):
      return "\(path): not a directory (expected the tree to archive)"
    case .invalidTopLevelName(let archive, let name):
      return "\(archive): top-level directory name '\(name)' must be a single path component"
    case .unsupportedFileType(let path, let found):
      return "\(path): is \(found); only regular files and directories can be archived"
    case .inputChanged(let path, let listed, let read):
      return "\(path): changed while being archived (listed with \(listed) bytes, read \(read))"
    case .libarchive(let archive, let entry?, let operation, let message):
      return "\(archive): entry '\(entry)': cannot \(operation): \(message)"
    case .libarchive(let archive, nil, let operation, let message):
      return "\(archive): cannot \(operation): \(message)"
    case .absolutePath(let archive, let entry):
      return
        "\(archive): entry '\(entry)' is an absolute path (expected one relative to the top-level directory)"
    case .escapingPath(let archive, let entry):
      return "\(archive): entry '\(entry)' escapes the top-level directory"
    case .unnormalisedPath(let archive, let entry):
      return "\(archive): entry '\(entry)' has an empty or '.' path component (expected a normalised path)"
    case .unsafeEntryType(let archive, let entry, let found):
      return "\(archive): entry '\(entry)' is a \(found.phrase) (expected a regular file or directory)"
    case .duplicateEntry(let archive, let entry):
      return "\(archive): entry '\(Self.shown(entry))' is in it twice"
    case .collidingNames(let archive, let entry, let other):
      return
        "\(archive): entry '\(Self.shown(entry))' and '\(Self.shown(other))' are one file on case-insensitive or normalising file systems"
    case .controlCharacter(let archive, let entry):
      return "\(archive): entry '\(Self.shown(entry))' has a control character in its name"
    case .notOneTopLevelDirectory(let archive, let found):
      let names = found.isEmpty ? "none" : found.map { "'\($0)'" }.joined(separator: ", ")
      return "\(archive): expected exactly one top-level directory, found \(names)"
    case .tooManyEntries(let archive, let limit):
      return "\(archive): has more than \(limit) entries (the extraction limit)"
    case .tooLarge(let archive, let limit):
      return
        "\(archive): entries declare or hold more than \(limit) bytes uncompressed (the extraction limit)"
    case .sizeMismatch(let archive, let entry, let declared, let read):
      let held = read > declared ? "at least \(read)" : "\(read)"
      return "\(archive): entry '\(entry)' declares \(declared) bytes but holds \(held)"
    case .destinationExists(let path):
      return "\(path): already exists (extraction never overwrites)"
    }
  }

  /// A name as it may be printed: control and format characters as `\u{…}`.
  static func shown(_ name: String) -> String {
    var shown = ""
    for scalar in name.unicodeScalars {
      if ZipReader.isControl(scalar) || scalar.properties.generalCategory == .format {
        shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
      } else {
        shown.unicodeScalars.append(scalar)
      }
    }
    return shown
  }

  /// libarchive's own explanation of the last failure on `archive`.
  static func libarchive(
    _ archive: OpaquePointer, path: String, entry: String?, operation: String
  ) -> ArchiveError {
    let message =
      archive_error_string(archive).map {
        String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines)
      } ?? "no reason given"
    return .libarchive(archive: path, entry: entry, operation: operation, message: message)
  }
}
