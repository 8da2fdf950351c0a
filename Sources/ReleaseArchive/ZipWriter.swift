import CArchive
import Foundation
import ReleaseSystem

/// What `ZipWriter.write` produced: the artifact's identity and what it holds.
public struct ZipSummary: Equatable, Sendable {
  /// Lower-case hex SHA-256 of the zip's bytes (the SPM registry checksum).
  public var sha256: String
  public var size: Int64
  /// Entries in archive order, the top-level directory first.
  public var entries: [ZipEntry]
}

/// Writes reproducible zips: the same tree and modification time give the same bytes,
/// whatever the files' own times, owners, creation order or the machine's time zone.
public enum ZipWriter {
  /// File data is streamed in blocks of this size, so memory stays flat for large models.
  static let blockSize = 64 * 1024
  /// 1980-01-01T00:00:00Z: DOS time, which zip headers store, cannot express anything earlier.
  public static let earliestModificationTime: Int64 = 315_532_800
  /// Never archived, at any depth: build products, SwiftPM and Finder state.
  static let alwaysExcludedNames: Set<String> = [".build", ".swiftpm", ".DS_Store"]

  /// Zips the contents of `directory` under a single top-level directory `topLevelName`.
  /// `isExcluded` is asked about each path relative to `directory` (`Sources/A/b.swift`);
  /// an excluded directory is not descended into. The zip appears at `destination` only
  /// once complete.
  public static func write(
    directory: URL, topLevelName: String, to destination: URL, modificationTime: Int64,
    excluding isExcluded: (String) -> Bool = { _ in false }
  ) throws -> ZipSummary {
    guard !topLevelName.isEmpty, topLevelName != ".", topLevelName != "..", !topLevelName.contains("/")
    else { throw ArchiveError.invalidTopLevelName(archive: destination.path, name: topLevelName) }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else { throw ArchiveError.notADirectory(path: directory.path) }

    var items = [InputItem(archivePath: topLevelName + "/", source: directory, kind: .directory, size: 0)]
    try collect(directory, relativePath: "", topLevelName: topLevelName, isExcluded: isExcluded, into: &items)
    // Byte order, not String's Unicode order: the same on every platform and toolchain.
    items.sort { $0.archivePath.utf8.lexicographicallyPrecedes($1.archivePath.utf8) }

    _ = processTimeZoneIsUTC
    let time = max(modificationTime, earliestModificationTime)
    // Staging: the release directory it is moved into is synced as a whole when renamed into place.
    return try AtomicFile.produce(destination, durable: false) { temporary in
      let entries = try UTF8Locale.run {
        try writeArchive(items, to: temporary, reportedPath: destination.path, modificationTime: time)
      }
      let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: temporary)
      return ZipSummary(sha256: sha256, size: size, entries: entries)
    }
  }

  /// libarchive converts each entry's mtime to the zip's DOS date and time with `localtime_r`,
  /// so the same input would give different bytes in different time zones. Pinning the process
  /// to UTC makes the output independent of the machine. `setenv` must not race other threads'
  /// `getenv`, so this runs exactly once (Swift initialises a static `let` once, atomically),
  /// before the first archive is written. Side effect, accepted: from then on the whole process
  /// sees local time as UTC (and a later change of TZ by anyone would break reproducibility).
  private static let processTimeZoneIsUTC: Void = {
    setenv("TZ", "UTC0", 1)
    tzset()
  }()

  private struct InputItem {
    var archivePath: String
    var source: URL
    var kind: ZipEntry.Kind
    var size: Int64
    var isExecutable = false

    var permissions: UInt16 { kind == .directory || isExecutable ? 0o755 : 0o644 }
    /// Model weights barely compress, and storing them skips deflate's work on every byte.
    var isStored: Bool { kind == .directory || archivePath.hasSuffix(".mlmodel") }
  }

  private static func collect(
    _ directory: URL, relativePath: String, topLevelName: String, isExcluded: (String) -> Bool,
    into items: inout [InputItem]
  ) throws {
    let names: [String]
    do { names = try FileManager.default.contentsOfDirectory(atPath: directory.path) } catch {
      throw SystemError.cannotRead(path: directory.path, reason: error.localizedDescription)
    }
    for name in names where !alwaysExcludedNames.contains(name) {
      let relative = relativePath.isEmpty ? name : relativePath + "/" + name
      if isExcluded(relative) { continue }
      let source = directory.appendingPathComponent(name)
      var status = stat()
      guard lstat(source.path, &status) == 0 else {
        throw SystemError.cannotRead(path: source.path, reason: String(cString: strerror(errno)))
      }
      let mode = UInt32(status.st_mode)
      switch mode & FileTypeBits.mask {
      case FileTypeBits.directory:
        items.append(
          InputItem(archivePath: "\(topLevelName)/\(relative)/", source: source, kind: .directory, size: 0))
        try collect(
          source, relativePath: relative, topLevelName: topLevelName, isExcluded: isExcluded, into: &items)
      case FileTypeBits.regular:
        items.append(
          InputItem(
            archivePath: "\(topLevelName)/\(relative)", source: source, kind: .file,
            size: Int64(status.st_size), isExecutable: mode & 0o111 != 0))
      case FileTypeBits.symlink:
        throw ArchiveError.unsupportedFileType(path: source.path, found: "a symbolic link")
      default:
        throw ArchiveError.unsupportedFileType(
          path: source.path, found: "a special file (device, FIFO or socket)")
      }
    }
  }

  private static func writeArchive(
    _ items: [InputItem], to file: URL, reportedPath: String, modificationTime: Int64
  ) throws -> [ZipEntry] {
    guard let archive = archive_write_new() else {
      throw ArchiveError.libarchive(
        archive: reportedPath, entry: nil, operation: "create a writer", message: "out of memory")
    }
    defer { archive_write_free(archive) }
    func check(_ status: Int32, _ operation: String, entry: String? = nil) throws {
      if status != ARCHIVE_OK {
        throw ArchiveError.libarchive(archive, path: reportedPath, entry: entry, operation: operation)
      }
    }
    try check(archive_write_set_format_zip(archive), "select the zip format")
    try check(archive_write_set_options(archive, "zip:hdrcharset=UTF-8"), "set UTF-8 names")
    // No padding after the last block: the file ends where the zip ends.
    try check(archive_write_set_bytes_in_last_block(archive, 1), "set unpadded output")
    try check(archive_write_open_filename(archive, file.path), "open for writing")

    guard let entry = archive_entry_new() else {
      throw ArchiveError.libarchive(
        archive: reportedPath, entry: nil, operation: "create an entry", message: "out of memory")
    }
    defer { archive_entry_free(entry) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
    defer { buffer.deallocate() }

    var entries: [ZipEntry] = []
    for item in items {
      describe(item, in: entry, modificationTime: modificationTime)
      // Applies to the next header. (The "zip:compression" option cannot change once the
      // archive is open; these calls can.)
      try check(
        item.isStored
          ? archive_write_zip_set_compression_store(archive)
          : archive_write_zip_set_compression_deflate(archive),
        "choose the compression", entry: item.archivePath)
      try check(archive_write_header(archive, entry), "write the header", entry: item.archivePath)
      if item.kind == .file {
        try copyData(of: item, into: archive, buffer: buffer, reportedPath: reportedPath)
      }
      try check(archive_write_finish_entry(archive), "finish the entry", entry: item.archivePath)
      entries.append(
        ZipEntry(path: item.archivePath, kind: item.kind, size: item.size, permissions: item.permissions))
      if entries.count == items.count / 2 { FaultPoint.reach("archive.partial") }
    }
    try check(archive_write_close(archive), "finish the archive")
    return entries
  }

  /// Sets `entry`'s header to `item`'s. Only what is set here reaches the zip: no owner names,
  /// atime, ctime or birthtime.
  private static func describe(_ item: InputItem, in entry: OpaquePointer, modificationTime: Int64) {
    archive_entry_clear(entry)
    archive_entry_set_pathname_utf8(entry, item.archivePath)
    archive_entry_set_filetype(entry, item.kind == .directory ? FileTypeBits.directory : FileTypeBits.regular)
    archive_entry_set_perm(entry, mode_t(item.permissions))
    archive_entry_set_size(entry, item.size)
    archive_entry_set_mtime(entry, time_t(modificationTime), 0)
    archive_entry_set_uid(entry, 0)
    archive_entry_set_gid(entry, 0)
  }

  /// Streams exactly the size written in the header; a file that grew or shrank since it was
  /// listed would otherwise leave a header that disagrees with its data.
  private static func copyData(
    of item: InputItem, into archive: OpaquePointer, buffer: UnsafeMutableRawBufferPointer,
    reportedPath: String
  ) throws {
    let descriptor = open(item.source.path, O_RDONLY)
    guard descriptor >= 0 else {
      throw SystemError.cannotRead(path: item.source.path, reason: String(cString: strerror(errno)))
    }
    defer { close(descriptor) }
    var copied: Int64 = 0
    while true {
      let count = read(descriptor, buffer.baseAddress, buffer.count)
      if count < 0 {
        if errno == EINTR { continue }
        throw SystemError.cannotRead(path: item.source.path, reason: String(cString: strerror(errno)))
      }
      if count == 0 { break }
      copied += Int64(count)
      if copied > item.size { break }
      if archive_write_data(archive, buffer.baseAddress, count) < 0 {
        throw ArchiveError.libarchive(
          archive, path: reportedPath, entry: item.archivePath, operation: "write data")
      }
    }
    if copied != item.size {
      throw ArchiveError.inputChanged(path: item.source.path, listedSize: item.size, readSize: copied)
    }
  }
}
