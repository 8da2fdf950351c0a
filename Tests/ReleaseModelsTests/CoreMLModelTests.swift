import Foundation
import ReleaseSystem
import XCTest

@testable import ReleaseModels

/// The committed model store, `models/` at the repo root, and its `index.json`, which
/// `Scripts/make-models` writes from what coremltools itself reads back from each file.
enum CommittedModelStore {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("models").resolvingSymlinksInPath()

  struct Entry: Decodable {
    var flowName: String
    var flowId: Int
    var modelVersion: Int
    var path: String
    var sha256: String
    var size: Int64
    var specificationVersion: Int
    var modelType: String
    var inputs: [String]
    var outputs: [String]
    var shortDescription: String
    var author: String
    var userDefinedMetadata: [String: String]
  }

  static func index() throws -> [Entry] {
    struct Index: Decodable { var models: [Entry] }
    let data = try Data(contentsOf: root.appendingPathComponent("index.json"))
    return try JSONDecoder().decode(Index.self, from: data).models
  }

  /// Every `.mlmodel` under the store, relative to it, found by walking the directory
  /// (not through `DirectoryModelStore`, which has tests of its own).
  static func modelPaths() throws -> [String] {
    let files = try FileManager.default.subpathsOfDirectory(atPath: root.path)
    return files.filter { $0.hasSuffix(".mlmodel") }.sorted()
  }

  /// The bytes of one real model, the raw material for the error-case tests.
  static func bytes(of relativePath: String) throws -> Data {
    try Data(contentsOf: root.appendingPathComponent(relativePath))
  }
}

final class CoreMLModelTests: XCTestCase {
  private var temporaryDirectory: URL!

  override func setUpWithError() throws {
    temporaryDirectory = FileManager.default.temporaryDirectory
      .appendingPathComponent("CoreMLModelTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try FileManager.default.removeItem(at: temporaryDirectory)
  }

  // MARK: - The committed store against coremltools' own reading

  func testIndexListsEveryModelInTheStoreAndNothingElse() throws {
    let indexed = try CommittedModelStore.index().map(\.path).sorted()
    XCTAssertEqual(indexed.count, 11, "make-models writes eleven models")
    XCTAssertEqual(try CommittedModelStore.modelPaths(), indexed)
  }

  func testEveryModelParsesAsCoremltoolsReadsIt() throws {
    let entries = try CommittedModelStore.index()
    XCTAssertFalse(entries.isEmpty)
    for entry in entries {
      let file = CommittedModelStore.root.appendingPathComponent(entry.path)
      let info = try CoreMLModelInfo.load(contentsOf: file)
      let expected = CoreMLModelInfo(
        specificationVersion: entry.specificationVersion, inputNames: entry.inputs,
        outputNames: entry.outputs,
        modelType: entry.modelType, shortDescription: entry.shortDescription, author: entry.author,
        userDefinedMetadata: entry.userDefinedMetadata)
      XCTAssertEqual(info, expected, entry.path)

      let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: file)
      XCTAssertEqual(sha256, entry.sha256, "\(entry.path) changed since index.json was written")
      XCTAssertEqual(size, entry.size, entry.path)
    }
  }

  func testModelMetadataNamesItsFlowAndVersion() throws {
    for entry in try CommittedModelStore.index() {
      XCTAssertEqual(entry.path, "\(entry.flowName)/\(entry.modelVersion).mlmodel")
      let info = try CoreMLModelInfo.load(
        contentsOf: CommittedModelStore.root.appendingPathComponent(entry.path))
      XCTAssertEqual(info.userDefinedMetadata["flowId"], String(entry.flowId), entry.path)
      XCTAssertEqual(info.userDefinedMetadata["flowName"], entry.flowName, entry.path)
      XCTAssertEqual(info.userDefinedMetadata["modelVersion"], String(entry.modelVersion), entry.path)
      XCTAssertNotNil(info.userDefinedMetadata["threshold"].flatMap(Double.init), entry.path)
    }
  }

  func testOneModelInDetail() throws {
    let info = try CoreMLModelInfo.parse(CommittedModelStore.bytes(of: "onboarding_upsell/73.mlmodel"))
    XCTAssertEqual(info.specificationVersion, 1)
    XCTAssertEqual(
      info.inputNames, ["session_count", "days_since_install", "minutes_in_app", "screens_viewed"])
    XCTAssertEqual(info.outputNames, ["show_upsell", "classProbability"])
    XCTAssertEqual(info.modelType, "pipelineClassifier")
    XCTAssertEqual(info.userDefinedMetadata["flowId"], "8362")
    XCTAssertEqual(info.userDefinedMetadata["threshold"], "0.65")
  }

  // MARK: - Skipping what is not needed

  func testUnknownFieldsOfEveryWireTypeAreSkipped() throws {
    let model = try CommittedModelStore.bytes(of: "rating_request/30.mlmodel")
    var extended = model
    extended.append(contentsOf: Self.tag(9001, wireType: 0) + [0x96, 0x01])  // varint 150
    extended.append(contentsOf: Self.tag(9002, wireType: 1) + [UInt8](repeating: 0xff, count: 8))
    extended.append(contentsOf: Self.tag(9003, wireType: 5) + [UInt8](repeating: 0xee, count: 4))
    extended.append(contentsOf: Self.tag(9004, wireType: 2) + [0x03, 0x61, 0x62, 0x63])
    XCTAssertEqual(try CoreMLModelInfo.parse(extended), try CoreMLModelInfo.parse(model))
  }

  /// A real model with ~50 MB of unknown payload appended (sparse, so the disk holds
  /// nothing): parsing must step over it.
  func testLargeModelParsesWithoutReadingItsPayload() throws {
    let model = try CommittedModelStore.bytes(of: "paywall_timing/14.mlmodel")
    let large = try Self.writeLargeModel(from: model, payloadSize: 50_000_000, in: temporaryDirectory)
    let attributes = try FileManager.default.attributesOfItem(atPath: large.path)
    XCTAssertGreaterThan((attributes[.size] as? NSNumber)?.intValue ?? 0, 50_000_000)
    XCTAssertEqual(try CoreMLModelInfo.load(contentsOf: large), try CoreMLModelInfo.parse(model))
  }

  func testLoadingALargeModelKeepsMemoryFlat() throws {
    #if os(Linux)
      let model = try CommittedModelStore.bytes(of: "paywall_timing/14.mlmodel")
      let large = try Self.writeLargeModel(from: model, payloadSize: 200_000_000, in: temporaryDirectory)
      try Self.resetPeakResidentMemory()
      let before = try Self.residentMemory(field: "VmRSS")
      let info = try CoreMLModelInfo.load(contentsOf: large)
      // The peak, not the current size: a file read into memory is freed again before `load` returns.
      let growth = try Self.residentMemory(field: "VmHWM") - before
      XCTAssertEqual(info.modelType, "pipelineClassifier")
      XCTAssertLessThan(
        growth, 16_000_000, "loading a 200 MB model raised peak resident memory by \(growth) bytes")
    #else
      throw XCTSkip("peak resident memory is read from /proc/self, which only Linux has")
    #endif
  }

  // MARK: - Model types

  func testModelTypeNamesTheOneofCase() throws {
    let header: [UInt8] = [0x08, 0x04] + Self.description(inputs: ["x"])
    XCTAssertEqual(
      try CoreMLModelInfo.parse(Data(header + Self.tag(300, wireType: 2) + [0x00])).modelType, "glmRegressor")
    XCTAssertEqual(
      try CoreMLModelInfo.parse(Data(header + Self.tag(402, wireType: 2) + [0x00])).modelType,
      "treeEnsembleClassifier")
    XCTAssertEqual(
      try CoreMLModelInfo.parse(Data(header + Self.tag(502, wireType: 2) + [0x00])).modelType, "mlProgram")
    // A number in the oneof's span that this reader does not know: a model type from a later Core ML.
    XCTAssertEqual(
      try CoreMLModelInfo.parse(Data(header + Self.tag(700, wireType: 2) + [0x00])).modelType, "field 700")
    // A known type is kept over an unknown number after it; fields past the span are no types.
    let knownThenUnknown = header + Self.tag(300, wireType: 2) + [0x00] + Self.tag(701, wireType: 2) + [0x00]
    XCTAssertEqual(try CoreMLModelInfo.parse(Data(knownThenUnknown)).modelType, "glmRegressor")
    XCTAssertNil(try CoreMLModelInfo.parse(Data(header + Self.tag(12345, wireType: 2) + [0x00])).modelType)
    XCTAssertNil(try CoreMLModelInfo.parse(Data(header)).modelType)
  }

  // MARK: - Errors, each with its message

  func testEmptyData() {
    assertError(Data(), .emptyFile, "empty file (0 bytes); expected a Core ML model (.mlmodel protobuf)")
  }

  func testEmptyFileOnDisk() throws {
    let file = temporaryDirectory.appendingPathComponent("empty.mlmodel")
    try Data().write(to: file)
    XCTAssertThrowsError(try CoreMLModelInfo.load(contentsOf: file)) { error in
      XCTAssertEqual(error as? CoreMLModelError, .emptyFile)
    }
  }

  /// Cuts of `onboarding_upsell/72.mlmodel`, which starts `08 01` (specificationVersion 1),
  /// then `12 81 04` (description, 513 bytes, at offset 2), and whose model proper starts
  /// at offset 518 with `c2 0c` (field 200, pipelineClassifier).
  func testTruncatedAtSeveralOffsets() throws {
    let model = try CommittedModelStore.bytes(of: "onboarding_upsell/72.mlmodel")
    XCTAssertEqual(Array(model.prefix(5)), [0x08, 0x01, 0x12, 0x81, 0x04])
    XCTAssertEqual(Array(model[518..<520]), [0xc2, 0x0c])
    let complete = "expected a complete Core ML model"

    assertError(
      model.prefix(1), .truncated(field: 1, offset: 0, fileSize: 1),
      "truncated: field 1 (specificationVersion) at byte offset 0 runs past the end of the file (1 byte); \(complete)"
    )
    for cut in [3, 4, 5, 100, 517] {
      assertError(
        model.prefix(cut), .truncated(field: 2, offset: 2, fileSize: cut),
        "truncated: field 2 (description) at byte offset 2 runs past the end of the file (\(cut) bytes); \(complete)"
      )
    }
    // `c2` alone is the first byte of a two-byte tag.
    assertError(
      model.prefix(519), .truncated(field: nil, offset: 518, fileSize: 519),
      "truncated: a field tag at byte offset 518 runs past the end of the file (519 bytes); \(complete)")
    for cut in [520, 521, model.count - 1] {
      assertError(
        model.prefix(cut), .truncated(field: 200, offset: 518, fileSize: cut),
        "truncated: field 200 (pipelineClassifier) at byte offset 518 runs past the end of the file (\(cut) bytes); "
          + complete)
    }
    // Cut between two fields: what remains is a well-formed model without its inputs' message.
    assertError(
      model.prefix(2), .noInputs, "the model description lists no inputs; expected at least one input feature"
    )
  }

  func testJSONFile() throws {
    let json = try Data(contentsOf: CommittedModelStore.root.appendingPathComponent("index.json"))
    assertError(
      json, .notCoreMLModel(found: "JSON text (starts with '{ \"models\": [ {')"),
      "not a Core ML model: found JSON text (starts with '{ \"models\": [ {'); expected a Core ML model (.mlmodel protobuf)"
    )
  }

  func testTextFile() {
    assertError(
      Data("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\n".utf8),
      .notCoreMLModel(found: "text (starts with 'version https://')"),
      "not a Core ML model: found text (starts with 'version https://'); expected a Core ML model (.mlmodel protobuf)"
    )
  }

  func testZipArchive() throws {
    let zip =
      Data([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00])
      + (try CommittedModelStore.bytes(of: "trial_reminder/3.mlmodel"))
    assertError(
      zip, .notCoreMLModel(found: "a zip archive (starts with 'PK')"),
      "not a Core ML model: found a zip archive (starts with 'PK'); expected a Core ML model (.mlmodel protobuf)"
    )
  }

  func testRandomBytes() {
    // A fixed linear congruential sequence: the same "random" bytes on every run.
    var state: UInt32 = 2024
    let bytes = (0..<256).map { _ -> UInt8 in
      state = state &* 1_664_525 &+ 1_013_904_223
      return UInt8(truncatingIfNeeded: state >> 24)
    }
    assertError(
      Data(bytes), .notCoreMLModel(found: "binary data starting with 05 dc ab 96 4f fd c3 ef"),
      "not a Core ML model: found binary data starting with 05 dc ab 96 4f fd c3 ef; "
        + "expected a Core ML model (.mlmodel protobuf)")
  }

  func testSpecificationVersionOutOfRange() throws {
    var model = try CommittedModelStore.bytes(of: "tracking_permission/5.mlmodel")
    XCTAssertEqual(Array(model.prefix(2)), [0x08, 0x01])
    model[1] = 42
    assertError(
      model, .unsupportedSpecificationVersion(42), "specificationVersion 42 is out of range; expected 1 to 10"
    )
    // -1 as int32 on the wire: ten bytes, sign-extended.
    let negative = Data([0x08] + [UInt8](repeating: 0xff, count: 9) + [0x01]) + model.dropFirst(2)
    assertError(
      negative, .unsupportedSpecificationVersion(-1),
      "specificationVersion -1 is out of range; expected 1 to 10")
  }

  func testMissingSpecificationVersion() throws {
    let model = try CommittedModelStore.bytes(of: "tracking_permission/5.mlmodel")
    assertError(
      model.dropFirst(2), .missingSpecificationVersion,
      "missing specificationVersion (field 1 is absent or 0); expected a version from 1 to 10")
  }

  func testNoInputs() {
    let outputsOnly: [UInt8] = [0x08, 0x04, 0x12, 0x05, 0x52, 0x03, 0x0a, 0x01, 0x79]
    assertError(
      Data(outputsOnly), .noInputs,
      "the model description lists no inputs; expected at least one input feature")
  }

  func testGroupsAreRejected() {
    assertError(
      Data([0x08, 0x04, 0x13, 0x14]),
      .malformed(offset: 2, reason: "field 2 is a group (wire type 3), which Core ML never writes"),
      "malformed protobuf at byte offset 2: field 2 is a group (wire type 3), which Core ML never writes; "
        + "expected a Core ML model (.mlmodel protobuf)")
  }

  func testNestedFieldRunningPastItsMessage() {
    // description (3 bytes at offset 2) holds an input (field 1 at offset 4) claiming 5 bytes.
    assertError(
      Data([0x08, 0x04, 0x12, 0x03, 0x0a, 0x05, 0x41, 0x42]),
      .malformed(offset: 4, reason: "field 1 runs past the end of the enclosing field 2 (byte offset 2)"),
      "malformed protobuf at byte offset 4: field 1 runs past the end of the enclosing field 2 (byte offset 2); "
        + "expected a Core ML model (.mlmodel protobuf)")
  }

  func testWrongWireTypeForAKnownField() {
    assertError(
      Data([0x0a, 0x01, 0x01]) + Data([0x12, 0x00]),
      .notCoreMLModel(found: "binary data starting with 0a 01 01 12 00"),
      "not a Core ML model: found binary data starting with 0a 01 01 12 00; expected a Core ML model (.mlmodel protobuf)"
    )
    assertError(
      Data([0x08, 0x04, 0x15, 0x00, 0x00, 0x00, 0x00]),
      .malformed(offset: 2, reason: "field 2 has wire type 5 instead of 2"),
      "malformed protobuf at byte offset 2: field 2 has wire type 5 instead of 2; "
        + "expected a Core ML model (.mlmodel protobuf)")
  }

  func testDirectory() {
    XCTAssertThrowsError(try CoreMLModelInfo.load(contentsOf: temporaryDirectory)) { error in
      XCTAssertEqual(error as? CoreMLModelError, .isDirectory)
      XCTAssertEqual(
        "\(error)",
        "is a directory (an .mlpackage or compiled .mlmodelc?); expected a Core ML model (.mlmodel protobuf) file"
      )
    }
  }

  func testMissingFile() {
    let file = temporaryDirectory.appendingPathComponent("absent.mlmodel")
    XCTAssertThrowsError(try CoreMLModelInfo.load(contentsOf: file)) { error in
      XCTAssertEqual(error as? CoreMLModelError, .unreadable(reason: "no such file"))
      XCTAssertEqual("\(error)", "cannot read: no such file")
    }
  }

  // MARK: - Helpers

  private func assertError(
    _ data: Data, _ expected: CoreMLModelError, _ message: String, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    XCTAssertThrowsError(try CoreMLModelInfo.parse(data), file: file, line: line) { error in
      XCTAssertEqual(error as? CoreMLModelError, expected, file: file, line: line)
      XCTAssertEqual("\(error)", message, file: file, line: line)
    }
  }

  static func varint(_ value: UInt64) -> [UInt8] {
    var value = value
    var bytes: [UInt8] = []
    while value >= 0x80 {
      bytes.append(UInt8(value & 0x7f) | 0x80)
      value >>= 7
    }
    return bytes + [UInt8(value)]
  }

  static func tag(_ field: UInt64, wireType: UInt64) -> [UInt8] { varint(field << 3 | wireType) }

  /// A `ModelDescription` field (2) holding one input per name.
  static func description(inputs: [String]) -> [UInt8] {
    let features = inputs.flatMap { name -> [UInt8] in
      let feature = tag(1, wireType: 2) + varint(UInt64(name.utf8.count)) + Array(name.utf8)
      return tag(1, wireType: 2) + varint(UInt64(feature.count)) + feature
    }
    return tag(2, wireType: 2) + varint(UInt64(features.count)) + features
  }

  /// `model` followed by field 9999 holding `payloadSize` zero bytes. The payload is made by
  /// extending the file, so it is sparse and costs neither time nor disk.
  static func writeLargeModel(from model: Data, payloadSize: Int, in directory: URL) throws -> URL {
    let file = directory.appendingPathComponent("large.mlmodel")
    let header = model + Data(tag(9999, wireType: 2) + varint(UInt64(payloadSize)))
    try header.write(to: file)
    let handle = try FileHandle(forWritingTo: file)
    try handle.truncate(atOffset: UInt64(header.count + payloadSize))
    try handle.close()
    return file
  }

  #if os(Linux)
    /// Starts a new peak (`VmHWM`) at the current resident size (Linux's `clear_refs` value 5).
    static func resetPeakResidentMemory() throws {
      try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    /// A `kB` line of /proc/self/status (`VmRSS`: resident now, `VmHWM`: peak), in bytes.
    static func residentMemory(field: String) throws -> Int {
      let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
      let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
      let kilobytes = line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
      return try XCTUnwrap(kilobytes, "no \(field) in /proc/self/status") * 1024
    }
  #endif
}
