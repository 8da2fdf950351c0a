import Foundation
import XCTest

@testable import ReleaseArchive

final class ZipReaderTests: XCTestCase {
  private var temporary: TemporaryDirectory!

  override func setUpWithError() throws { temporary = try TemporaryDirectory() }
  override func tearDown() { temporary.remove() }

  /// One entry for `makeZip`, written by Python's zipfile (an independent zip producer).
  private struct Entry: Encodable {
    var name: String
    var data = ""
    /// Full `st_mode`, stored in the upper half of `external_attr` as Info-ZIP does.
    var mode = 0o100644
    var deflate = false
    /// When set, the local and central headers are patched to claim this uncompressed size.
    var declaredSize: Int64?
  }

  /// Tests/Fixtures/Archives/make_zip.py, shared with the fault tests.
  private static let makeZipScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/Archives/make_zip.py").path

  private func makeZip(_ name: String, _ entries: [Entry]) throws -> URL {
    let zip = temporary.path("zips/\(name).zip")
    try FileManager.default.createDirectory(
      at: zip.deletingLastPathComponent(), withIntermediateDirectories: true)
    let spec = temporary.path("zips/\(name).json")
    try JSONEncoder().encode(entries).write(to: spec)
    _ = try runTool("python3", [Self.makeZipScript, zip.path, spec.path])
    return zip
  }

  private struct PythonEntry: Decodable, Equatable {
    var name: String
    var mode: Int
    var size: Int64
    var sha256: String?
  }

  /// Python's own view of a zip: names, modes, sizes and each file's SHA-256.
  private func pythonEntries(of zip: URL) throws -> [PythonEntry] {
    try python(
      [PythonEntry].self,
      """
      import hashlib, json, sys, zipfile
      archive = zipfile.ZipFile(sys.argv[1])
      print(json.dumps([{'name': info.filename, 'mode': info.external_attr >> 16, 'size': info.file_size,
                         'sha256': None if info.is_dir() else hashlib.sha256(archive.read(info)).hexdigest()}
                        for info in archive.infolist()]))
      """, [zip.path])
  }

  // MARK: Listing and streaming

  func testEntriesListWhatPythonListsForAForeignZip() throws {
    let zip = try makeZip(
      "foreign",
      [
        Entry(name: "Pkg/", mode: 0o40755),
        Entry(name: "Pkg/b.txt", data: String(repeating: "b", count: 5000), deflate: true),
        Entry(name: "Pkg/a.sh", data: "#!/bin/sh\n", mode: 0o100755),
        Entry(name: "Pkg/Sub/", mode: 0o40700),
        Entry(name: "Pkg/Sub/Ä.txt", data: "umlaut"),
      ])

    let entries = try ZipReader.entries(of: zip)

    let expected = try pythonEntries(of: zip)
    XCTAssertEqual(entries.map(\.path), expected.map(\.name))
    XCTAssertEqual(entries.map(\.size), expected.map(\.size))
    XCTAssertEqual(entries.map { Int($0.permissions) }, expected.map { $0.mode & 0o7777 })
    XCTAssertEqual(
      entries.map(\.kind), expected.map { $0.mode & 0o170000 == 0o040000 ? ZipEntry.Kind.directory : .file })
  }

  func testEntriesOfAWrittenZipAreWhatTheWriterReported() throws {
    try temporary.file("tree/Sources/main.swift", "print(1)\n")
    try temporary.file("tree/run", "#!/bin/sh\n", permissions: 0o755)
    let zip = temporary.path("out.zip")
    let summary = try ZipWriter.write(
      directory: temporary.path("tree"), topLevelName: "Pkg", to: zip, modificationTime: 1_577_836_800)

    XCTAssertEqual(try ZipReader.entries(of: zip), summary.entries)
    XCTAssertEqual(try pythonEntries(of: zip).map(\.name), summary.entries.map(\.path))
  }

  func testForEachFileStreamsEveryFileInBlocks() throws {
    let contents = [
      "Pkg/big.txt": String(repeating: "0123456789", count: 30_000),
      "Pkg/small.txt": "small",
      "Pkg/empty.txt": "",
    ]
    let zip = try makeZip(
      "files",
      [Entry(name: "Pkg/", mode: 0o40755)]
        + contents.keys.sorted().map {
          Entry(name: $0, data: contents[$0]!, deflate: $0.hasSuffix("big.txt"))
        })
    var read: [String: String] = [:]
    var blockSizes: [Int] = []
    var digests: [String: String] = [:]

    try ZipReader.forEachFile(in: zip) { entry, data in
      XCTAssertEqual(entry.kind, .file)
      var bytes = Data()
      try data.forEachBlock { block in
        blockSizes.append(block.count)
        bytes.append(contentsOf: block)
      }
      read[entry.path] = String(decoding: bytes, as: UTF8.self)
    }
    try ZipReader.forEachFile(in: zip) { entry, data in digests[entry.path] = try data.sha256AndSize().sha256
    }

    XCTAssertEqual(read, contents)
    XCTAssertLessThanOrEqual(blockSizes.max() ?? 0, 64 * 1024)
    XCTAssertGreaterThan(blockSizes.count, 4, "300 kB arrive in several blocks")
    let expected = try pythonEntries(of: zip).filter { $0.sha256 != nil }
    XCTAssertEqual(digests, Dictionary(uniqueKeysWithValues: expected.map { ($0.name, $0.sha256!) }))
  }

  func testNotAZipIsAnErrorWithLibarchivesReason() throws {
    let notZip = try temporary.file("notes.zip", "just text, not a zip")

    XCTAssertThrowsError(try ZipReader.entries(of: notZip)) { error in
      guard case .libarchive(let archive, nil, _, let message)? = error as? ArchiveError else {
        return XCTFail("unexpected error \(error)")
      }
      XCTAssertEqual(archive, notZip.path)
      XCTAssertFalse(message.isEmpty)
    }
    let problems = ZipReader.safetyProblems(of: notZip)
    XCTAssertEqual(problems.count, 1, "\(problems)")
    guard case .libarchive(notZip.path, nil, "open", _)? = problems.first else {
      return XCTFail("unexpected problems \(problems)")
    }
  }

  // MARK: Extraction

  func testExtractRestoresTheTreeAndRefusesToOverwrite() throws {
    try temporary.file("tree/Sources/SDK/SDK.swift", "public let x = 1\n")
    try temporary.file("tree/run.sh", "#!/bin/sh\n", permissions: 0o755)
    try temporary.file("tree/Model.mlmodel", data: Data((0..<70_000).map { UInt8($0 % 253) }))
    try temporary.file("tree/Docs/Über.md", "# Über\n")
    try temporary.file("tree/empty.txt", "")
    try temporary.directory("tree/Empty")
    let zip = temporary.path("Pkg.zip")
    _ = try ZipWriter.write(
      directory: temporary.path("tree"), topLevelName: "Pkg", to: zip, modificationTime: 0)
    let output = temporary.path("out")

    let extracted = try ZipReader.extract(zip, into: output)

    XCTAssertEqual(extracted.lastPathComponent, "Pkg")
    XCTAssertEqual(
      listing(of: output), (["Pkg"] + listing(of: temporary.path("tree")).map { "Pkg/" + $0 }).sorted())
    for path in ["Sources/SDK/SDK.swift", "run.sh", "Model.mlmodel", "Docs/Über.md", "empty.txt"] {
      XCTAssertEqual(
        try Data(contentsOf: extracted.appendingPathComponent(path)),
        try Data(contentsOf: temporary.path("tree/\(path)")), path)
    }
    XCTAssertTrue(
      FileManager.default.isExecutableFile(atPath: extracted.appendingPathComponent("run.sh").path))
    XCTAssertFalse(
      FileManager.default.isExecutableFile(atPath: extracted.appendingPathComponent("Model.mlmodel").path))

    XCTAssertThrowsError(try ZipReader.extract(zip, into: output)) { error in
      XCTAssertEqual(error as? ArchiveError, .destinationExists(path: extracted.path))
    }
  }

  func testExtractAcceptsDirectoryEntriesAfterTheirContents() throws {
    let zip = try makeZip(
      "late-directories",
      [
        Entry(name: "Pkg/Sub/file.txt", data: "x"),
        Entry(name: "Pkg/Sub/", mode: 0o40755),
        Entry(name: "Pkg/", mode: 0o40755),
      ])

    let extracted = try ZipReader.extract(zip, into: temporary.path("out"))

    XCTAssertEqual(
      try String(contentsOf: extracted.appendingPathComponent("Sub/file.txt"), encoding: .utf8), "x")
  }

  /// Extracts into `sandbox/out` and expects an error `isExpected` accepts; nothing may appear
  /// anywhere in the sandbox (which is where `../` entries would land), nor at `outside`.
  private func assertRefused(
    _ zip: URL, limits: ExtractionLimits = ExtractionLimits(), outside: String? = nil,
    file: StaticString = #filePath, line: UInt = #line, _ isExpected: (ArchiveError) -> Bool
  ) throws {
    let sandbox = temporary.path("sandbox-\(zip.deletingPathExtension().lastPathComponent)")
    try temporary.file("\(sandbox.lastPathComponent)/existing.txt", "was here")
    let before = listing(of: sandbox)

    XCTAssertThrowsError(
      try ZipReader.extract(zip, into: sandbox.appendingPathComponent("out"), limits: limits), file: file,
      line: line
    ) { error in
      XCTAssertTrue(
        (error as? ArchiveError).map(isExpected) ?? false, "unexpected error: \(error)", file: file,
        line: line)
      XCTAssertTrue("\(error)".hasPrefix(zip.path + ": "), "\(error)", file: file, line: line)
    }
    XCTAssertEqual(listing(of: sandbox), before, "nothing written", file: file, line: line)
    if let outside {
      XCTAssertFalse(
        FileManager.default.fileExists(atPath: outside), "\(outside) written", file: file, line: line)
    }
  }

  func testZipSlipIsRefused() throws {
    let zip = try makeZip(
      "slip", [Entry(name: "Pkg/a.txt", data: "a"), Entry(name: "../evil.txt", data: "evil")])
    try assertRefused(zip) { $0 == .escapingPath(archive: zip.path, entry: "../evil.txt") }

    let nested = try makeZip("nested-slip", [Entry(name: "Pkg/../../evil.txt", data: "evil")])
    try assertRefused(nested) { $0 == .escapingPath(archive: nested.path, entry: "Pkg/../../evil.txt") }
  }

  func testAbsolutePathIsRefused() throws {
    let outside = "/tmp/release-archive-test-\(UUID().uuidString)/evil.txt"
    let zip = try makeZip(
      "absolute", [Entry(name: "Pkg/a.txt", data: "a"), Entry(name: outside, data: "evil")])
    try assertRefused(zip, outside: outside) { $0 == .absolutePath(archive: zip.path, entry: outside) }
  }

  func testSymbolicLinkEntryIsRefused() throws {
    let zip = try makeZip(
      "symlink",
      [Entry(name: "Pkg/", mode: 0o40755), Entry(name: "Pkg/passwd", data: "/etc/passwd", mode: 0o120777)])
    try assertRefused(zip) { $0 == .unsafeEntryType(archive: zip.path, entry: "Pkg/passwd", found: .symlink) }
  }

  /// Issue 12: names that would land on one file: the same entry twice, names equal after
  /// case folding (APFS, NTFS) or Unicode normalisation (é precomposed and e + U+0301), and
  /// control characters in a name.
  func testDuplicateCollidingAndControlCharacterNamesAreRefused() throws {
    let twice = try makeZip(
      "twice", [Entry(name: "Pkg/a.txt", data: "a"), Entry(name: "Pkg/a.txt", data: "b")])
    try assertRefused(twice) { $0 == .duplicateEntry(archive: twice.path, entry: "Pkg/a.txt") }

    let cased = try makeZip(
      "cased", [Entry(name: "Pkg/Package.swift", data: "a"), Entry(name: "Pkg/package.swift", data: "b")])
    try assertRefused(cased) {
      $0 == .collidingNames(archive: cased.path, entry: "Pkg/package.swift", other: "Pkg/Package.swift")
    }

    let normalised = try makeZip(
      "normalised",
      [Entry(name: "Pkg/caf\u{E9}.txt", data: "a"), Entry(name: "Pkg/cafe\u{301}.txt", data: "b")])
    // libarchive 3.6 hands both names over in NFC, so the pair reads as one name twice; a
    // reader that kept them apart would find them colliding. Refused either way.
    try assertRefused(normalised) {
      $0 == .duplicateEntry(archive: normalised.path, entry: "Pkg/caf\u{E9}.txt")
        || $0
          == .collidingNames(
            archive: normalised.path, entry: "Pkg/cafe\u{301}.txt", other: "Pkg/caf\u{E9}.txt")
    }

    for (label, name) in [
      ("bell", "Pkg/a\u{7}.txt"), ("escape", "Pkg/\u{1B}[31m.txt"), ("c1", "Pkg/a\u{85}b.txt"),
    ] {
      let zip = try makeZip(label, [Entry(name: "Pkg/ok.txt", data: "a"), Entry(name: name, data: "b")])
      try assertRefused(zip) { $0 == .controlCharacter(archive: zip.path, entry: name) }
      XCTAssertFalse(
        ArchiveError.controlCharacter(archive: "x.zip", entry: name).description.unicodeScalars.contains {
          $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
        }, "the message shows the name escaped")
    }
  }

  func testTwoTopLevelDirectoriesAreRefused() throws {
    let zip = try makeZip("two-tops", [Entry(name: "A/x.txt", data: "x"), Entry(name: "B/y.txt", data: "y")])
    try assertRefused(zip) { $0 == .notOneTopLevelDirectory(archive: zip.path, found: ["A/", "B/"]) }
  }

  func testTopLevelFileIsRefused() throws {
    let zip = try makeZip(
      "top-file", [Entry(name: "README", data: "x"), Entry(name: "Pkg/y.txt", data: "y")])
    try assertRefused(zip) { $0 == .notOneTopLevelDirectory(archive: zip.path, found: ["README", "Pkg/"]) }
  }

  func testHeaderClaimingAHugeSizeIsRefused() throws {
    let zip = try makeZip(
      "huge-claim",
      [
        Entry(name: "Pkg/", mode: 0o40755),
        Entry(name: "Pkg/big", data: "small", declaredSize: 4_000_000_000),
      ])
    try assertRefused(zip) { $0 == .tooLarge(archive: zip.path, limit: 2 << 30) }
  }

  func testHeaderClaimingLessThanTheDataHoldsIsRefused() throws {
    // Bigger than libarchive's own inflate buffer (256 KiB), which it checks on its own when
    // the whole entry fits; this module's check stops after the first block past the claim.
    let data = (0..<200_000).map { "line \($0)\n" }.joined()
    let zip = try makeZip(
      "understated",
      [
        Entry(name: "Pkg/", mode: 0o40755),
        Entry(name: "Pkg/file", data: data, deflate: true, declaredSize: 10),
      ])
    try assertRefused(zip) { error in
      guard case .sizeMismatch(zip.path, "Pkg/file", 10, let read) = error else { return false }
      return read > 10
    }
  }

  func testHeaderClaimingMoreThanTheDataHoldsIsRefused() throws {
    let zip = try makeZip(
      "overstated",
      [Entry(name: "Pkg/", mode: 0o40755), Entry(name: "Pkg/file", data: "small", declaredSize: 1000)])
    // libarchive notices this itself, after the data ends; this module would too.
    try assertRefused(zip) { error in
      switch error {
      case .sizeMismatch(zip.path, "Pkg/file", 1000, 5), .libarchive(zip.path, "Pkg/file", "read data", _):
        return true
      default: return false
      }
    }
  }

  func testEntryCountOverTheLimitIsRefused() throws {
    let zip = try makeZip("many", (0..<5).map { Entry(name: "Pkg/\($0).txt", data: "x") })
    try assertRefused(zip, limits: ExtractionLimits(maximumEntries: 4)) {
      $0 == .tooManyEntries(archive: zip.path, limit: 4)
    }
  }

  func testUncompressedSizeOverTheLimitIsRefused() throws {
    let zip = try makeZip(
      "bomb", [Entry(name: "Pkg/zeros", data: String(repeating: "0", count: 100_000), deflate: true)])
    try assertRefused(zip, limits: ExtractionLimits(maximumUncompressedBytes: 50_000)) {
      $0 == .tooLarge(archive: zip.path, limit: 50_000)
    }
  }

  func testSafetyProblemsListsEveryProblemAndNoneForAGoodZip() throws {
    let bad = try makeZip(
      "bad",
      [
        Entry(name: "Pkg/ok.txt", data: "ok"),
        Entry(name: "../evil.txt", data: "evil"),
        Entry(name: "/abs.txt", data: "abs"),
        Entry(name: "Pkg/./dot.txt", data: "dot"),
        Entry(name: "Pkg/link", data: "ok.txt", mode: 0o120777),
        Entry(name: "Other/x.txt", data: "x"),
      ])
    try temporary.file("tree/ok.txt", "ok")
    let good = temporary.path("good.zip")
    _ = try ZipWriter.write(
      directory: temporary.path("tree"), topLevelName: "Pkg", to: good, modificationTime: 0)

    XCTAssertEqual(
      ZipReader.safetyProblems(of: bad),
      [
        .escapingPath(archive: bad.path, entry: "../evil.txt"),
        .absolutePath(archive: bad.path, entry: "/abs.txt"),
        .unnormalisedPath(archive: bad.path, entry: "Pkg/./dot.txt"),
        .unsafeEntryType(archive: bad.path, entry: "Pkg/link", found: .symlink),
        .notOneTopLevelDirectory(archive: bad.path, found: ["Pkg/", "Other/"]),
      ])
    XCTAssertEqual(ZipReader.safetyProblems(of: good), [])
  }
}
