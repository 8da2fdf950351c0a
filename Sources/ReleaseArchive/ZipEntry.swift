import CArchive

/// One entry of a zip as it is stored: directories keep their trailing `/`.
public struct ZipEntry: Equatable, Hashable, Sendable {
  public enum Kind: String, Equatable, Hashable, Sendable {
    case file, directory, symlink, hardlink, other

    /// The kind in a sentence: "a symbolic link".
    var phrase: String {
      switch self {
      case .file: return "regular file"
      case .directory: return "directory"
      case .symlink: return "symbolic link"
      case .hardlink: return "hard link"
      case .other: return "special file"
      }
    }
  }

  public var path: String
  public var kind: Kind
  /// Uncompressed size in bytes (0 for directories).
  public var size: Int64
  /// Permission bits (`mode & 0o7777`), e.g. 0o644.
  public var permissions: UInt16

  public init(path: String, kind: Kind, size: Int64, permissions: UInt16) {
    self.path = path
    self.kind = kind
    self.size = size
    self.permissions = permissions
  }
}

/// File-type bits of `st_mode`, spelled out because libarchive's `AE_IF*` macros are casts
/// Swift does not import.
enum FileTypeBits {
  static let mask: UInt32 = 0o170000
  static let regular: UInt32 = 0o100000
  static let directory: UInt32 = 0o040000
  static let symlink: UInt32 = 0o120000
}
