import Foundation
import XCTest

@testable import ReleaseArchive

final class ZipWriterTests: XCTestCase {
  private var temporary: TemporaryDirectory!

  override func setUpWithError() throws { temporary = try TemporaryDirectory() }
  override func tearDown() { temporary.remove() }

  /// 2020-01-01T00:00:00Z.
  private let fixedTime: Int64 = 1_577_836_800

  /// What Python's zipfile reports for one entry, plus the `ux` (uid/gid) and `UT` (times)
  /// extra fields decoded by hand.
  private struct PythonEntry: Decodable {
    var name: String
    var method: Int
    var mode: Int
    var dateTime: [Int]
    var size: Int64
    var uid: Int?
    var gid: Int?
    var timestampFlags: Int?
    var utf8: Bool
  }

  private struct PythonListing: Decodable {
    /// `ZipFile.testzip()`: the first entry whose CRC fails, or nil.
    var firstBadEntry: String?
    var entries: [PythonEntry]
  }

  private static let describeZip = """
    import json, struct, sys, zipfile
    archive = zipfile.ZipFile(sys.argv[1])
    entries = []
    for info in archive.infolist():
        uid = gid = flags = None
        extra, offset = info.extra, 0
        while offset + 4 <= len(extra):
            tag, size = struct.unpack('<HH', extra[offset:offset + 4])
            body = extra[offset + 4:offset + 4 + size]
            if tag == 0x7875:
                uid_size = body[1]
                uid = int.from_bytes(body[2:2 + uid_size], 'little')
                gid_size = body[2 + uid_size]
                gid = int.from_bytes(body[3 + uid_size:3 + uid_size + gid_size], 'little')
            if tag == 0x5455:
                flags = body[0]
            offset += 4 + size
        entries.append({'name': info.filename, 'method': info.compress_type, 'mode': info.external_attr >> 16,
                        'dateTime': list(info.date_time), 'size': info.file_size, 'uid': uid, 'gid': gid,
                        'timestampFlags': flags, 'utf8': bool(info.flag_bits & 0x800)})
    print(json.dumps({'firstBadEntry': archive.testzip(), 'entries': entries}))
    """

  /// A package-like tree with nested and empty directories, an executable, a model, an empty
  /// file, a non-ASCII name, and the build and editor state that must never be archived.
  private func makeTree(at root: String) throws {
    try temporary.file("\(root)/Package.swift", "// swift-tools-version:5.9\n")
    try temporary.file("\(root)/Sources/SDK/SDK.swift", String(repeating: "public let x = 1\n", count: 200))
    try temporary.file("\(root)/Sources/SDK/Nested/Deeper/Helper.swift", "enum Helper {}\n")
    try temporary.file(
      "\(root)/Sources/SDK/Resources/Paywall.mlmodel", data: Data((0..<100_000).map { UInt8($0 % 251) }))
    try temporary.file("\(root)/Scripts/run.sh", "#!/bin/sh\necho hi\n", permissions: 0o755)
    try temporary.file("\(root)/Docs/Über.md", "# Über\n")
    try temporary.file("\(root)/empty.txt", "")
    try temporary.directory("\(root)/Sources/Empty")
    try temporary.file("\(root)/.build/debug/Thing.o", "object")
    try temporary.file("\(root)/Sources/SDK/.build/stale", "stale")
    try temporary.file("\(root)/.swiftpm/xcode/package.xcworkspace", "x")
    try temporary.file("\(root)/.DS_Store", "finder")
    try temporary.file("\(root)/Sources/SDK/.DS_Store", "finder")
  }

  /// The entries `makeTree` must give, in byte order ('.' < '/' < 'D' < 'P' < 'S' < 'e').
  private let expectedNames = [
    "AcmeSDK/",
    "AcmeSDK/Docs/",
    "AcmeSDK/Docs/Über.md",
    "AcmeSDK/Package.swift",
    "AcmeSDK/Scripts/",
    "AcmeSDK/Scripts/run.sh",
    "AcmeSDK/Sources/",
    "AcmeSDK/Sources/Empty/",
    "AcmeSDK/Sources/SDK/",
    "AcmeSDK/Sources/SDK/Nested/",
    "AcmeSDK/Sources/SDK/Nested/Deeper/",
    "AcmeSDK/Sources/SDK/Nested/Deeper/Helper.swift",
    "AcmeSDK/Sources/SDK/Resources/",
    "AcmeSDK/Sources/SDK/Resources/Paywall.mlmodel",
    "AcmeSDK/Sources/SDK/SDK.swift",
    "AcmeSDK/empty.txt",
  ]

  func testZipIsWhatIndependentToolsExpect() throws {
    try makeTree(at: "tree")
    let zip = temporary.path("dist/AcmeSDK.zip")

    let summary = try ZipWriter.write(
      directory: temporary.path("tree"), topLevelName: "AcmeSDK", to: zip, modificationTime: fixedTime)

    _ = try runTool("unzip", ["-tq", zip.path])
    let described = try python(PythonListing.self, Self.describeZip, [zip.path])
    XCTAssertNil(described.firstBadEntry)
    XCTAssertEqual(described.entries.map(\.name), expectedNames)
    XCTAssertEqual(summary.entries.map(\.path), expectedNames)
    for entry in described.entries {
      let isDirectory = entry.name.hasSuffix("/")
      let expectedMode =
        isDirectory ? 0o40755 : entry.name.hasSuffix("run.sh") ? 0o100755 : 0o100644
      XCTAssertEqual(entry.mode, expectedMode, "mode of \(entry.name)")
      // zipfile's constants: ZIP_STORED = 0, ZIP_DEFLATED = 8.
      let expectedMethod = isDirectory || entry.name.hasSuffix(".mlmodel") ? 0 : 8
      XCTAssertEqual(entry.method, expectedMethod, "compression of \(entry.name)")
      XCTAssertEqual(entry.dateTime, [2020, 1, 1, 0, 0, 0], "time of \(entry.name)")
      XCTAssertEqual(entry.uid, 0, "uid of \(entry.name)")
      XCTAssertEqual(entry.gid, 0, "gid of \(entry.name)")
      XCTAssertEqual(entry.timestampFlags, 1, "only mtime, no atime/ctime, in \(entry.name)")
      // Only non-ASCII names need the flag (ASCII reads the same in every encoding).
      XCTAssertEqual(entry.utf8, entry.name.utf8.contains { $0 >= 0x80 }, "UTF-8 flag of \(entry.name)")
    }
    XCTAssertEqual(
      Dictionary(uniqueKeysWithValues: described.entries.map { ($0.name, $0.size) }),
      Dictionary(uniqueKeysWithValues: summary.entries.map { ($0.path, $0.size) }))

    XCTAssertEqual(summary.sha256, try sha256sum(zip))
    let size = try FileManager.default.attributesOfItem(atPath: zip.path)[.size] as? Int64
    XCTAssertEqual(summary.size, size)
    XCTAssertEqual(
      listing(of: temporary.path("dist")), ["AcmeSDK.zip"], "no temporary sibling is left behind")
  }

  func testSameTreeGivesIdenticalBytesWhateverTheFileTimesAndCreationOrder() throws {
    try makeTree(at: "first")
    // The same contents, created in a different order, with different times on disk.
    try temporary.file(
      "second/Sources/SDK/Resources/Paywall.mlmodel", data: Data((0..<100_000).map { UInt8($0 % 251) }))
    try temporary.file("second/.DS_Store", "other finder state")
    try temporary.file("second/empty.txt", "")
    try temporary.directory("second/Sources/Empty")
    try temporary.file("second/Docs/Über.md", "# Über\n")
    try temporary.file("second/Scripts/run.sh", "#!/bin/sh\necho hi\n", permissions: 0o755)
    try temporary.file("second/Sources/SDK/Nested/Deeper/Helper.swift", "enum Helper {}\n")
    try temporary.file("second/Sources/SDK/SDK.swift", String(repeating: "public let x = 1\n", count: 200))
    try temporary.file("second/Package.swift", "// swift-tools-version:5.9\n")
    let past = Date(timeIntervalSince1970: 1_000_000_000)
    for path in listing(of: temporary.path("second")) {
      try FileManager.default.setAttributes(
        [.modificationDate: past], ofItemAtPath: temporary.path("second/\(path)").path)
    }

    let first = try ZipWriter.write(
      directory: temporary.path("first"), topLevelName: "AcmeSDK", to: temporary.path("a/AcmeSDK.zip"),
      modificationTime: fixedTime)
    let second = try ZipWriter.write(
      directory: temporary.path("second"), topLevelName: "AcmeSDK", to: temporary.path("b/AcmeSDK.zip"),
      modificationTime: fixedTime)

    XCTAssertEqual(
      try Data(contentsOf: temporary.path("a/AcmeSDK.zip")),
      try Data(contentsOf: temporary.path("b/AcmeSDK.zip")))
    XCTAssertEqual(first, second)
  }

  func testModificationTimeBeforeDOSEpochIsClampedTo1980() throws {
    try temporary.file("tree/a.txt", "a")
    let zip = temporary.path("old.zip")

    _ = try ZipWriter.write(
      directory: temporary.path("tree"), topLevelName: "Old", to: zip, modificationTime: 0)

    let described = try python(PythonListing.self, Self.describeZip, [zip.path])
    XCTAssertEqual(described.entries.map(\.dateTime), [[1980, 1, 1, 0, 0, 0], [1980, 1, 1, 0, 0, 0]])
  }

  func testExcludedPathsAreLeftOut() throws {
    try temporary.file("tree/keep.txt", "keep")
    try temporary.file("tree/secrets/token", "secret")
    try temporary.file("tree/notes.tmp", "scratch")
    let zip = temporary.path("out.zip")

    let summary = try ZipWriter.write(
      directory: temporary.path("tree"), topLevelName: "Pkg", to: zip, modificationTime: fixedTime,
      excluding: { $0 == "secrets" || $0.hasSuffix(".tmp") })

    let described = try python(PythonListing.self, Self.describeZip, [zip.path])
    XCTAssertEqual(described.entries.map(\.name), ["Pkg/", "Pkg/keep.txt"])
    XCTAssertEqual(summary.entries.map(\.path), ["Pkg/", "Pkg/keep.txt"])
  }

  func testSymbolicLinkInTheTreeIsAnErrorNamingItAndLeavesNoZip() throws {
    try temporary.file("tree/real.txt", "real")
    let link = temporary.path("tree/link.txt")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.txt")
    let zip = temporary.path("dist/out.zip")

    XCTAssertThrowsError(
      try ZipWriter.write(
        directory: temporary.path("tree"), topLevelName: "Pkg", to: zip, modificationTime: fixedTime)
    ) { error in
      XCTAssertEqual(error as? ArchiveError, .unsupportedFileType(path: link.path, found: "a symbolic link"))
      XCTAssertTrue("\(error)".hasPrefix(link.path + ": is a symbolic link"), "\(error)")
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: zip.path))
  }

  func testTopLevelNameMustBeOneComponent() throws {
    try temporary.file("tree/a.txt", "a")
    for name in ["", ".", "..", "a/b"] {
      let zip = temporary.path("out.zip")
      XCTAssertThrowsError(
        try ZipWriter.write(
          directory: temporary.path("tree"), topLevelName: name, to: zip, modificationTime: fixedTime)
      ) { error in
        XCTAssertEqual(error as? ArchiveError, .invalidTopLevelName(archive: zip.path, name: name))
      }
    }
  }

  func testInputThatIsNotADirectoryIsAnError() throws {
    let file = try temporary.file("file.txt", "not a directory")
    let zip = temporary.path("out.zip")

    XCTAssertThrowsError(
      try ZipWriter.write(directory: file, topLevelName: "Pkg", to: zip, modificationTime: fixedTime)
    ) { error in
      XCTAssertEqual(error as? ArchiveError, .notADirectory(path: file.path))
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: zip.path))
  }

  func testLargeFilesAreStreamedWithFlatMemory() throws {
    // Sparse files: 48 MiB each on paper, nearly nothing on disk, with a few real bytes; a
    // writer or reader that held one whole file would grow by more than the limit below.
    let size: UInt64 = 48 << 20
    for name in ["weights.mlmodel", "blob.bin"] {
      let file = try temporary.file("tree/\(name)", "start")
      let handle = try FileHandle(forWritingTo: file)
      try handle.truncate(atOffset: size - 3)
      try handle.seekToEnd()
      handle.write(Data("end".utf8))
      try handle.close()
    }
    let zip = temporary.path("big.zip")

    resetPeakResidentBytes()
    let before = residentBytes()
    let summary = try ZipWriter.write(
      directory: temporary.path("tree"), topLevelName: "Big", to: zip, modificationTime: fixedTime)
    var digests: [String: String] = [:]
    try ZipReader.forEachFile(in: zip) { entry, data in
      digests[entry.path] = try data.sha256AndSize().sha256
    }
    let growth = peakResidentBytes() - before

    XCTAssertLessThan(growth, 32 << 20, "peak memory grew by \(growth) bytes for 96 MiB of input")
    XCTAssertEqual(summary.entries.filter { $0.kind == .file }.map(\.size), [Int64(size), Int64(size)])
    XCTAssertEqual(digests["Big/blob.bin"], try sha256sum(temporary.path("tree/blob.bin")))
    XCTAssertEqual(digests["Big/weights.mlmodel"], try sha256sum(temporary.path("tree/weights.mlmodel")))
    XCTAssertEqual(summary.sha256, try sha256sum(zip))
  }
}
