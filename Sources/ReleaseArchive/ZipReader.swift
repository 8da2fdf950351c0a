import CArchive
import Foundation
import ReleaseSystem

/// Bounds on what `ZipReader.extract` accepts, against zip bombs and runaway archives.
public struct ExtractionLimits: Equatable, Sendable {
  public var maximumEntries: Int
  /// Total uncompressed bytes, both as declared by the headers and as actually decompressed.
  public var maximumUncompressedBytes: Int64

  public init(maximumEntries: Int = 10_000, maximumUncompressedBytes: Int64 = 2 << 30) {
    self.maximumEntries = maximumEntries
    self.maximumUncompressedBytes = maximumUncompressedBytes
  }
}

/// Reads, vets and extracts zips with libarchive (zip format only).
public enum ZipReader {
  /// Every entry in archive order, as the central directory describes it.
  public static func entries(of zip: URL) throws -> [ZipEntry] {
    try UTF8Locale.run {
      let reader = try ArchiveReader(zip)
      var entries: [ZipEntry] = []
      while let entry = try reader.nextEntry() { entries.append(entry) }
      return entries
    }
  }

  /// Calls `body` with each regular file in archive order, and its data to stream; other
  /// entries are skipped. The data may be read once, and only inside `body`.
  public static func forEachFile(in zip: URL, _ body: (ZipEntry, ZipFileData) throws -> Void) throws {
    try UTF8Locale.run {
      let reader = try ArchiveReader(zip)
      while let entry = try reader.nextEntry() {
        guard entry.kind == .file else { continue }
        let data = ZipFileData(reader: reader, entry: entry)
        defer { data.isCurrent = false }
        try body(entry, data)
      }
    }
  }

  /// Everything that makes `zip` unsafe to extract or unfit as a source archive: paths that are
  /// absolute, escape or are not normalised; links and special files; not exactly one top-level
  /// directory; limits exceeded; sizes the data contradicts; unreadable data. Empty means safe.
  /// Decompresses every file once (in blocks) to compare its size with its header.
  public static func safetyProblems(of zip: URL, limits: ExtractionLimits = ExtractionLimits())
    -> [ArchiveError]
  {
    UTF8Locale.run { inspect(zip, limits: limits).problems }
  }

  /// Extracts `zip` into `directory` (created if missing) and returns the extracted top-level
  /// directory. Nothing is written unless `safetyProblems` finds none; the first problem is
  /// thrown. Never overwrites: the top-level directory must not exist yet. If extraction fails
  /// part-way, what it wrote is removed.
  @discardableResult
  public static func extract(
    _ zip: URL, into directory: URL, limits: ExtractionLimits = ExtractionLimits()
  ) throws -> URL {
    let inspection = UTF8Locale.run { inspect(zip, limits: limits) }
    if let problem = inspection.problems.first { throw problem }
    guard let topLevelName = inspection.topLevelName else {
      preconditionFailure("an archive without problems has one top-level directory")
    }

    try AtomicFile.createDirectory(directory)
    // libarchive's SECURE_SYMLINKS check refuses any symlink on the path, including the
    // destination's own ancestors (macOS's /var -> /private/var), so resolve those first.
    guard let resolved = realpath(directory.path, nil) else {
      throw SystemError.cannotRead(path: directory.path, reason: String(cString: strerror(errno)))
    }
    let base = String(cString: resolved)
    free(resolved)
    let topLevel = URL(fileURLWithPath: base).appendingPathComponent(topLevelName)
    var status = stat()
    if lstat(topLevel.path, &status) == 0 { throw ArchiveError.destinationExists(path: topLevel.path) }

    do {
      try UTF8Locale.run {
        try writeEntries(of: zip, under: base, topLevelName: topLevelName, limits: limits)
      }
    } catch {
      try? FileManager.default.removeItem(at: topLevel)
      throw error
    }
    return topLevel
  }

  /// Second pass, after `inspect` found nothing: writes through `archive_write_disk` with its
  /// own path checks, and vets every entry again in case the file changed since.
  private static func writeEntries(
    of zip: URL, under base: String, topLevelName: String, limits: ExtractionLimits
  ) throws {
    let reader = try ArchiveReader(zip)
    guard let disk = archive_write_disk_new() else {
      throw ArchiveError.libarchive(
        archive: zip.path, entry: nil, operation: "create a disk writer", message: "out of memory")
    }
    defer { archive_write_free(disk) }
    // SECURE_NOABSOLUTEPATHS is left out on purpose: entry paths are re-rooted under `base`,
    // which is absolute, and the alternative (chdir) would change every thread's working
    // directory. Absolute entry paths were already refused by `inspect`.
    let flags =
      ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_NO_OVERWRITE
    archive_write_disk_set_options(disk, flags)

    var budget = SizeBudget(archive: zip.path, limits: limits)
    var count = 0
    while let entry = try reader.nextEntry() {
      count += 1
      if count > limits.maximumEntries {
        throw ArchiveError.tooManyEntries(archive: zip.path, limit: limits.maximumEntries)
      }
      let components = try vet(entry, in: zip.path).get()
      if components[0] != topLevelName {
        throw ArchiveError.notOneTopLevelDirectory(
          archive: zip.path, found: [topLevelName + "/", String(components[0])])
      }
      let header = reader.currentHeader!
      archive_entry_set_pathname_utf8(header, base + "/" + entry.path)
      guard archive_write_header(disk, header) == ARCHIVE_OK else {
        throw ArchiveError.libarchive(disk, path: zip.path, entry: entry.path, operation: "extract")
      }
      if entry.kind == .file {
        try reader.readData(of: entry, budget: &budget) { block in
          if archive_write_data(disk, block.baseAddress, block.count) != block.count {
            throw ArchiveError.libarchive(disk, path: zip.path, entry: entry.path, operation: "write data")
          }
        }
      }
      guard archive_write_finish_entry(disk) == ARCHIVE_OK else {
        throw ArchiveError.libarchive(disk, path: zip.path, entry: entry.path, operation: "finish extracting")
      }
    }
    // Directory permissions are applied here, after their contents were written.
    guard archive_write_close(disk) == ARCHIVE_OK else {
      throw ArchiveError.libarchive(disk, path: zip.path, entry: nil, operation: "finish extracting")
    }
  }

  private struct Inspection {
    var problems: [ArchiveError] = []
    var topLevelName: String?
  }

  /// The names of an archive's entries so far: every name, exactly (by its bytes: Swift strings
  /// compare canonically equivalent names as equal) and folded (case and Unicode
  /// normalisation), to the first holder; and the top-level names in first-seen order, with
  /// whether each is a directory.
  private struct Names {
    var seen = Set<[UInt8]>()
    var folded: [String: String] = [:]
    var topLevel: [(name: String, isDirectory: Bool)] = []

    /// Records `entry`, whose path is `components`; a duplicate or colliding name is a problem.
    mutating func add(_ entry: ZipEntry, components: [Substring], archive: String) -> ArchiveError? {
      let name = String(components[0])
      let isDirectory = components.count > 1 || entry.kind == .directory
      if let index = topLevel.firstIndex(where: { $0.name == name }) {
        topLevel[index].isDirectory = topLevel[index].isDirectory && isDirectory
      } else {
        topLevel.append((name, isDirectory))
      }
      let path = entry.path.hasSuffix("/") ? String(entry.path.dropLast()) : entry.path
      if !seen.insert(Array(path.utf8)).inserted {
        return .duplicateEntry(archive: archive, entry: entry.path)
      }
      let key = ZipReader.foldedName(path)
      if let other = folded[key] { return .collidingNames(archive: archive, entry: path, other: other) }
      folded[key] = path
      return nil
    }
  }

  private static func inspect(_ zip: URL, limits: ExtractionLimits) -> Inspection {
    var inspection = Inspection()
    var names = Names()
    var readToTheEnd = false
    do {
      let reader = try ArchiveReader(zip)
      var budget = SizeBudget(archive: zip.path, limits: limits)
      var count = 0
      while let entry = try reader.nextEntry() {
        count += 1
        if count > limits.maximumEntries {
          throw ArchiveError.tooManyEntries(archive: zip.path, limit: limits.maximumEntries)
        }
        switch vet(entry, in: zip.path) {
        case .failure(let problem):
          inspection.problems.append(problem)
          continue
        case .success(let components):
          if let problem = names.add(entry, components: components, archive: zip.path) {
            inspection.problems.append(problem)
          }
        }
        if entry.kind == .file { try reader.readData(of: entry, budget: &budget) { _ in } }
      }
      readToTheEnd = true
    } catch let error as ArchiveError {
      // Unreadable data, a lying header or a broken limit: what follows cannot be trusted or
      // is not worth reading, so this is the last problem reported.
      inspection.problems.append(error)
    } catch {
      preconditionFailure("ArchiveReader throws ArchiveError only: \(error)")
    }
    // The top level of a partly read archive is unknown; its other problems stand anyway.
    guard readToTheEnd else { return inspection }
    let topLevel = names.topLevel
    if topLevel.count == 1, topLevel[0].isDirectory {
      inspection.topLevelName = topLevel[0].name
    } else {
      let found = topLevel.map { $0.isDirectory ? $0.name + "/" : $0.name }
      inspection.problems.append(.notOneTopLevelDirectory(archive: zip.path, found: found))
    }
    return inspection
  }

  /// C0 controls, DEL and C1 controls.
  static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  /// The name a case-insensitive, normalising file system (APFS, NTFS, HFS+) stores: NFC, then
  /// case-folded.
  static func foldedName(_ path: String) -> String {
    path.precomposedStringWithCanonicalMapping.lowercased()
  }

  /// The entry's path components (without a directory's trailing empty one), or why the entry
  /// must not be extracted: its path is absolute, escapes, or is not normalised, or it is not a
  /// regular file or directory.
  private static func vet(_ entry: ZipEntry, in archive: String) -> Result<[Substring], ArchiveError> {
    let path = entry.path
    if path.unicodeScalars.contains(where: isControl) {
      return .failure(.controlCharacter(archive: archive, entry: path))
    }
    if path.hasPrefix("/") { return .failure(.absolutePath(archive: archive, entry: path)) }
    var components = path.split(separator: "/", omittingEmptySubsequences: false)
    if path.hasSuffix("/") { components.removeLast() }
    if components.contains("..") { return .failure(.escapingPath(archive: archive, entry: path)) }
    if components.isEmpty || components.contains(where: { $0.isEmpty || $0 == "." }) {
      return .failure(.unnormalisedPath(archive: archive, entry: path))
    }
    guard entry.kind == .file || entry.kind == .directory else {
      return .failure(.unsafeEntryType(archive: archive, entry: path, found: entry.kind))
    }
    return .success(components)
  }
}

/// One regular file's data inside `ZipReader.forEachFile`.
public final class ZipFileData {
  private let reader: ArchiveReader
  private let entry: ZipEntry
  fileprivate var isCurrent = true

  fileprivate init(reader: ArchiveReader, entry: ZipEntry) {
    self.reader = reader
    self.entry = entry
  }

  /// Streams the data in blocks of at most 64 KiB; throws if it disagrees with the declared size.
  public func forEachBlock(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    precondition(isCurrent, "ZipFileData read outside its forEachFile call")
    var budget = SizeBudget(archive: reader.path, limits: nil)
    try reader.readData(of: entry, budget: &budget, body)
  }

  /// Hex SHA-256 and size of the data, streamed.
  public func sha256AndSize() throws -> (sha256: String, size: Int64) {
    var hasher = SHA256Hasher()
    var size: Int64 = 0
    try forEachBlock { block in
      hasher.update(block)
      size += Int64(block.count)
    }
    return (hasher.finalizeHex(), size)
  }
}

/// Running totals against `ExtractionLimits`, declared and decompressed.
struct SizeBudget {
  let archive: String
  let limits: ExtractionLimits?
  var declared: Int64 = 0
  var read: Int64 = 0

  mutating func declare(_ size: Int64) throws {
    declared += size
    try check(declared)
  }

  mutating func consume(_ size: Int) throws {
    read += Int64(size)
    try check(read)
  }

  private func check(_ total: Int64) throws {
    if let limits, total > limits.maximumUncompressedBytes {
      throw ArchiveError.tooLarge(archive: archive, limit: limits.maximumUncompressedBytes)
    }
  }
}

/// A libarchive read handle on one zip, positioned at one entry at a time.
final class ArchiveReader {
  static let blockSize = 64 * 1024
  let path: String
  private let archive: OpaquePointer
  private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
  /// libarchive's header of the current entry, valid until the next `nextEntry`.
  private(set) var currentHeader: OpaquePointer?

  init(_ zip: URL) throws {
    path = zip.path
    guard let archive = archive_read_new() else {
      buffer.deallocate()
      throw ArchiveError.libarchive(
        archive: path, entry: nil, operation: "create a reader", message: "out of memory")
    }
    self.archive = archive
    archive_read_support_format_zip(archive)
    guard archive_read_open_filename(archive, path, Self.blockSize) == ARCHIVE_OK else {
      throw ArchiveError.libarchive(archive, path: path, entry: nil, operation: "open")
    }
  }

  deinit {
    archive_read_free(archive)
    buffer.deallocate()
  }

  func nextEntry() throws -> ZipEntry? {
    var header: OpaquePointer?
    let status = archive_read_next_header(archive, &header)
    if status == ARCHIVE_EOF { return nil }
    guard status == ARCHIVE_OK, let header else {
      throw ArchiveError.libarchive(archive, path: path, entry: nil, operation: "read the next header")
    }
    currentHeader = header
    return Self.describe(header)
  }

  /// Streams the current entry's data, checking it against the declared size (and `budget`)
  /// block by block, so a lying header is caught without reading further than one block past it.
  func readData(
    of entry: ZipEntry, budget: inout SizeBudget, _ body: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    try budget.declare(entry.size)
    var read: Int64 = 0
    while true {
      let count = archive_read_data(archive, buffer.baseAddress, buffer.count)
      if count < 0 {
        throw ArchiveError.libarchive(archive, path: path, entry: entry.path, operation: "read data")
      }
      if count == 0 { break }
      read += Int64(count)
      try budget.consume(count)
      if read > entry.size { break }
      try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }
    if read != entry.size {
      throw ArchiveError.sizeMismatch(archive: path, entry: entry.path, declared: entry.size, read: read)
    }
  }

  private static func describe(_ header: OpaquePointer) -> ZipEntry {
    let path =
      (archive_entry_pathname_utf8(header) ?? archive_entry_pathname(header)).map { String(cString: $0) }
      ?? ""
    let kind: ZipEntry.Kind
    if archive_entry_hardlink(header) != nil {
      kind = .hardlink
    } else {
      switch UInt32(archive_entry_filetype(header)) {
      case FileTypeBits.regular: kind = .file
      case FileTypeBits.directory: kind = .directory
      case FileTypeBits.symlink: kind = .symlink
      default: kind = .other
      }
    }
    return ZipEntry(
      path: path, kind: kind, size: archive_entry_size(header),
      permissions: UInt16(archive_entry_perm(header) & 0o7777))
  }
}
