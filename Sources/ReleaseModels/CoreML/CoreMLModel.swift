import Foundation
import ReleaseSystem

/// What the release tool needs to know of a `.mlmodel` file, read without Core ML (which
/// Linux lacks) and without a protobuf library (the package has no dependencies).
public struct CoreMLModelInfo: Equatable, Sendable {
  /// Core ML specification version: which OS releases can run the model.
  public var specificationVersion: Int
  public var inputNames: [String]
  var outputNames: [String]
  /// The case of `Model`'s `Type` oneof (`glmClassifier`, `pipelineRegressor`, …), `field N`
  /// for a number this reader does not know, nil when the model names none.
  var modelType: String?
  public var shortDescription: String
  var author: String
  /// `metadata.userDefined`: `flowId`, `flowName`, `modelVersion`, `threshold`, and whatever
  /// the converter adds (`com.github.apple.coremltools.version`).
  public var userDefinedMetadata: [String: String]

  init(
    specificationVersion: Int, inputNames: [String], outputNames: [String], modelType: String?,
    shortDescription: String, author: String, userDefinedMetadata: [String: String]
  ) {
    self.specificationVersion = specificationVersion
    self.inputNames = inputNames
    self.outputNames = outputNames
    self.modelType = modelType
    self.shortDescription = shortDescription
    self.author = author
    self.userDefinedMetadata = userDefinedMetadata
  }

  /// Specification versions Core ML has defined so far (1 is iOS 11; 9 is iOS 18); one
  /// outside this range is a corrupt file or a format this tool has not been taught.
  static let supportedSpecificationVersions = 1...10

  /// Reads a model file. The file is memory-mapped and fields this reader does not need
  /// (weights, trees, nested pipeline models) are skipped by length, so their pages are
  /// never read: a 200 MB model costs no more memory than a 2 KB one.
  public static func load(contentsOf url: URL) throws -> CoreMLModelInfo {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw CoreMLModelError.unreadable(reason: "no such file")
    }
    if isDirectory.boolValue { throw CoreMLModelError.isDirectory }
    let data: Data
    do {
      // Mapped from a descriptor checked to be a regular file: what is at the path may have
      // been swapped for a FIFO or a device since the store looked.
      data = try RegularFile.mapped(url)
    } catch SystemError.notARegularFile(_, let kind) {
      throw CoreMLModelError.unreadable(reason: "\(kind), not a regular file")
    } catch {
      throw CoreMLModelError.unreadable(reason: "\(error)")
    }
    return try parse(data)
  }

  /// Parses the bytes of a `.mlmodel` file (a serialized `CoreML.Specification.Model`).
  static func parse(_ data: Data) throws -> CoreMLModelInfo {
    if data.isEmpty { throw CoreMLModelError.emptyFile }
    let fields: ModelFields
    do {
      fields = try data.withUnsafeBytes { try ModelFields(ProtobufReader(bytes: $0)) }
    } catch let error as CoreMLModelError {
      // A wire-format error in a file that does not even start like a model message says
      // "this is some other kind of file" better than a byte offset does.
      if !ContentKind.startsLikeModel(data) {
        throw CoreMLModelError.notCoreMLModel(found: ContentKind.describe(data))
      }
      throw error
    }
    guard fields.sawSpecificationVersion || fields.sawDescription else {
      throw CoreMLModelError.notCoreMLModel(found: ContentKind.describe(data))
    }
    guard let version = fields.specificationVersion else {
      throw CoreMLModelError.missingSpecificationVersion
    }
    guard supportedSpecificationVersions.contains(version) else {
      throw CoreMLModelError.unsupportedSpecificationVersion(version)
    }
    guard !fields.inputNames.isEmpty else { throw CoreMLModelError.noInputs }
    return CoreMLModelInfo(
      specificationVersion: version, inputNames: fields.inputNames, outputNames: fields.outputNames,
      modelType: fields.modelType, shortDescription: fields.shortDescription, author: fields.author,
      userDefinedMetadata: fields.userDefinedMetadata)
  }
}

/// Why a file is not a usable Core ML model. Messages are one line and leave out the path:
/// the caller prefixes it (`models/paywall_timing/14.mlmodel: truncated: …`).
enum CoreMLModelError: Error, CustomStringConvertible, Equatable, Sendable {
  case emptyFile
  case isDirectory
  case unreadable(reason: String)
  /// A field (its number when the tag could be read) starting at `offset` claims bytes
  /// beyond the end of a file of `fileSize` bytes.
  case truncated(field: Int?, offset: Int, fileSize: Int)
  /// Not protobuf as a Core ML model is written: `reason` says what broke the wire format.
  case malformed(offset: Int, reason: String)
  /// Some other kind of file: `found` names it (`JSON text`, `a zip archive`, …).
  case notCoreMLModel(found: String)
  case missingSpecificationVersion
  case unsupportedSpecificationVersion(Int)
  case noInputs

  var description: String {
    let expectation = "expected a Core ML model (.mlmodel protobuf)"
    switch self {
    case .emptyFile:
      return "empty file (0 bytes); \(expectation)"
    case .isDirectory:
      return "is a directory (an .mlpackage or compiled .mlmodelc?); \(expectation) file"
    case .unreadable(let reason):
      return "cannot read: \(reason)"
    case .truncated(let field, let offset, let fileSize):
      let what = field.map { "field \($0)\(ModelFields.nameSuffix(ofTopLevelField: $0))" } ?? "a field tag"
      let size = fileSize == 1 ? "1 byte" : "\(fileSize) bytes"
      return "truncated: \(what) at byte offset \(offset) runs past the end of the file (\(size)); "
        + "expected a complete Core ML model"
    case .malformed(let offset, let reason):
      return "malformed protobuf at byte offset \(offset): \(reason); \(expectation)"
    case .notCoreMLModel(let found):
      return "not a Core ML model: found \(found); \(expectation)"
    case .missingSpecificationVersion:
      return "missing specificationVersion (field 1 is absent or 0); expected a version from "
        + "\(Self.supportedRange)"
    case .unsupportedSpecificationVersion(let version):
      return "specificationVersion \(version) is out of range; expected \(Self.supportedRange)"
    case .noInputs:
      return "the model description lists no inputs; expected at least one input feature"
    }
  }

  private static var supportedRange: String {
    let range = CoreMLModelInfo.supportedSpecificationVersions
    return "\(range.lowerBound) to \(range.upperBound)"
  }
}

// MARK: - Core ML's Model message

/// The fields of `CoreML.Specification.Model` (coremltools 9.0, `Model.proto`) this reader
/// keeps. Repeated occurrences of a message field merge and of a scalar field replace, as in
/// any protobuf parser.
private struct ModelFields {
  var specificationVersion: Int?
  var sawSpecificationVersion = false
  var sawDescription = false
  var inputNames: [String] = []
  var outputNames: [String] = []
  var modelType: String?
  /// A known type wins over an unknown number, whichever comes last.
  private var sawKnownModelType = false
  var shortDescription = ""
  var author = ""
  var userDefinedMetadata: [String: String] = [:]

  // Model
  private static let specificationVersionField = 1
  private static let descriptionField = 2
  private static let isUpdatableField = 10
  // ModelDescription
  private static let inputField = 1
  private static let outputField = 10
  private static let metadataField = 100
  // FeatureDescription
  private static let featureNameField = 1
  // Metadata
  private static let shortDescriptionField = 1
  private static let authorField = 3
  private static let userDefinedField = 100
  // map<string, string> entry
  private static let mapKeyField = 1
  private static let mapValueField = 2

  /// `Model.Type`, the oneof that holds the model proper.
  static let modelTypeNames: [Int: String] = [
    200: "pipelineClassifier", 201: "pipelineRegressor", 202: "pipeline",
    300: "glmRegressor", 301: "supportVectorRegressor", 302: "treeEnsembleRegressor",
    303: "neuralNetworkRegressor", 304: "bayesianProbitRegressor",
    400: "glmClassifier", 401: "supportVectorClassifier", 402: "treeEnsembleClassifier",
    403: "neuralNetworkClassifier", 404: "kNearestNeighborsClassifier",
    500: "neuralNetwork", 501: "itemSimilarityRecommender", 502: "mlProgram",
    555: "customModel", 556: "linkedModel", 560: "classConfidenceThresholding",
    600: "oneHotEncoder", 601: "imputer", 602: "featureVectorizer", 603: "dictVectorizer",
    604: "scaler", 606: "categoricalMapping", 607: "normalizer", 609: "arrayFeatureExtractor",
    610: "nonMaximumSuppression", 900: "identity",
    2000: "textClassifier", 2001: "wordTagger", 2002: "visionFeaturePrint",
    2003: "soundAnalysisPreprocessing", 2004: "gazetteer", 2005: "wordEmbedding",
    2006: "audioFeaturePrint", 3000: "serializedModel",
  ]

  /// Model.proto gives the oneof blocks from 200 (pipelines) to 3000 (serializedModel) and
  /// no other field there, so an unknown number in that span is taken as a model type this
  /// reader does not know yet; numbers beyond it are plain unknown fields.
  private static let modelTypeFieldSpan = 200..<4000

  /// ` (description)` for a known top-level field, for messages that name a field by number.
  static func nameSuffix(ofTopLevelField number: Int) -> String {
    switch number {
    case specificationVersionField: return " (specificationVersion)"
    case descriptionField: return " (description)"
    case isUpdatableField: return " (isUpdatable)"
    default: return modelTypeNames[number].map { " (\($0))" } ?? ""
    }
  }

  init(_ reader: ProtobufReader) throws {
    var reader = reader
    while let field = try reader.nextField() {
      switch field.number {
      case Self.specificationVersionField:
        sawSpecificationVersion = true
        // int32 on the wire: negative values are sign-extended to 64 bits.
        let version = Int(Int32(truncatingIfNeeded: try reader.varint(of: field)))
        specificationVersion = version == 0 ? nil : version
      case Self.descriptionField:
        sawDescription = true
        try readDescription(try reader.message(of: field))
      case let number where Self.modelTypeFieldSpan.contains(number):
        try reader.skip(field)
        if let name = Self.modelTypeNames[number] {
          modelType = name
          sawKnownModelType = true
        } else if !sawKnownModelType {
          modelType = "field \(number)"
        }
      default:
        try reader.skip(field)
      }
    }
  }

  private mutating func readDescription(_ reader: ProtobufReader) throws {
    var reader = reader
    while let field = try reader.nextField() {
      switch field.number {
      case Self.inputField: inputNames.append(try Self.featureName(try reader.message(of: field)))
      case Self.outputField: outputNames.append(try Self.featureName(try reader.message(of: field)))
      case Self.metadataField: try readMetadata(try reader.message(of: field))
      default: try reader.skip(field)
      }
    }
  }

  private static func featureName(_ reader: ProtobufReader) throws -> String {
    var reader = reader
    var name = ""
    while let field = try reader.nextField() {
      if field.number == featureNameField {
        name = try reader.string(of: field)
      } else {
        try reader.skip(field)
      }
    }
    return name
  }

  private mutating func readMetadata(_ reader: ProtobufReader) throws {
    var reader = reader
    while let field = try reader.nextField() {
      switch field.number {
      case Self.shortDescriptionField: shortDescription = try reader.string(of: field)
      case Self.authorField: author = try reader.string(of: field)
      case Self.userDefinedField:
        var entry = try reader.message(of: field)
        var key = ""
        var value = ""
        while let entryField = try entry.nextField() {
          switch entryField.number {
          case Self.mapKeyField: key = try entry.string(of: entryField)
          case Self.mapValueField: value = try entry.string(of: entryField)
          default: try entry.skip(entryField)
          }
        }
        userDefinedMetadata[key] = value
      default: try reader.skip(field)
      }
    }
  }
}

// MARK: - Protobuf wire format

/// A cursor over one protobuf message's bytes: the whole file, or a length-delimited field
/// of an enclosing message. Reads only tags, varints and the strings asked for; skipping a
/// field moves the cursor without touching the skipped bytes.
private struct ProtobufReader {
  enum WireType: UInt64 {
    case varint = 0, fixed64 = 1, lengthDelimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
  }

  struct Field {
    var number: Int
    var wireType: WireType
    /// Where the field's tag starts, from the start of the file.
    var offset: Int
  }

  private let bytes: UnsafeRawBufferPointer
  private var position: Int
  private let end: Int
  /// The enclosing field when this reader covers a nested message (for messages), nil at
  /// the top level, where running past `end` means the file is truncated.
  private let enclosing: Field?

  init(bytes: UnsafeRawBufferPointer) {
    self.init(bytes: bytes, range: 0..<bytes.count, enclosing: nil)
  }

  private init(bytes: UnsafeRawBufferPointer, range: Range<Int>, enclosing: Field?) {
    self.bytes = bytes
    self.position = range.lowerBound
    self.end = range.upperBound
    self.enclosing = enclosing
  }

  /// The next field's tag, or nil at the end of the message.
  mutating func nextField() throws -> Field? {
    guard position < end else { return nil }
    let offset = position
    let tag = try readVarint(field: nil, offset: offset)
    let number = tag >> 3
    guard let wireType = WireType(rawValue: tag & 7) else {
      throw CoreMLModelError.malformed(offset: offset, reason: "wire type \(tag & 7) does not exist")
    }
    // Field numbers are at most 2^29 - 1.
    guard number > 0, number < 1 << 29 else {
      throw CoreMLModelError.malformed(offset: offset, reason: "field number \(number) is not valid")
    }
    let field = Field(number: Int(number), wireType: wireType, offset: offset)
    if wireType == .startGroup || wireType == .endGroup {
      throw CoreMLModelError.malformed(
        offset: offset,
        reason: "field \(number) is a group (wire type \(wireType.rawValue)), which Core ML never writes")
    }
    return field
  }

  mutating func varint(of field: Field) throws -> UInt64 {
    try expect(field, .varint)
    return try readVarint(field: field.number, offset: field.offset)
  }

  /// A reader over the nested message a length-delimited field holds.
  mutating func message(of field: Field) throws -> ProtobufReader {
    try expect(field, .lengthDelimited)
    let range = try readLengthDelimited(field)
    return ProtobufReader(bytes: bytes, range: range, enclosing: field)
  }

  mutating func string(of field: Field) throws -> String {
    try expect(field, .lengthDelimited)
    let range = try readLengthDelimited(field)
    guard let text = String(bytes: UnsafeRawBufferPointer(rebasing: bytes[range]), encoding: .utf8) else {
      throw CoreMLModelError.malformed(
        offset: field.offset, reason: "field \(field.number) is not valid UTF-8 text")
    }
    return text
  }

  mutating func skip(_ field: Field) throws {
    switch field.wireType {
    case .varint: _ = try readVarint(field: field.number, offset: field.offset)
    case .fixed64: try advance(by: 8, field: field)
    case .fixed32: try advance(by: 4, field: field)
    case .lengthDelimited: _ = try readLengthDelimited(field)
    case .startGroup, .endGroup: preconditionFailure("nextField() rejects groups")
    }
  }

  private func expect(_ field: Field, _ wireType: WireType) throws {
    guard field.wireType == wireType else {
      throw CoreMLModelError.malformed(
        offset: field.offset,
        reason:
          "field \(field.number) has wire type \(field.wireType.rawValue) instead of \(wireType.rawValue)")
    }
  }

  private mutating func readVarint(field: Int?, offset: Int) throws -> UInt64 {
    var value: UInt64 = 0
    for index in 0..<10 {
      guard position < end else { throw pastEnd(field: field, offset: offset) }
      let byte = bytes[position]
      position += 1
      value |= UInt64(byte & 0x7f) << (7 * UInt64(index))
      if byte & 0x80 == 0 { return value }
    }
    throw CoreMLModelError.malformed(offset: offset, reason: "varint longer than 10 bytes")
  }

  private mutating func readLengthDelimited(_ field: Field) throws -> Range<Int> {
    let length = try readVarint(field: field.number, offset: field.offset)
    guard length <= UInt64(end - position) else { throw pastEnd(field: field.number, offset: field.offset) }
    let range = position..<(position + Int(length))
    position = range.upperBound
    return range
  }

  private mutating func advance(by count: Int, field: Field) throws {
    guard count <= end - position else { throw pastEnd(field: field.number, offset: field.offset) }
    position += count
  }

  private func pastEnd(field: Int?, offset: Int) -> CoreMLModelError {
    guard let enclosing else { return .truncated(field: field, offset: offset, fileSize: bytes.count) }
    let what = field.map { "field \($0)" } ?? "a field tag"
    return .malformed(
      offset: offset,
      reason:
        "\(what) runs past the end of the enclosing field \(enclosing.number) (byte offset \(enclosing.offset))"
    )
  }
}

// MARK: - Recognizing other kinds of files

/// Names what a file that is not a Core ML model looks like, for `notCoreMLModel`.
private enum ContentKind {
  /// Serializers write fields in number order and every model has a specificationVersion,
  /// so a model starts with field 1 as a varint (0x08), or field 2 (0x12) when the version
  /// is missing.
  static func startsLikeModel(_ data: Data) -> Bool {
    data.first == 0x08 || data.first == 0x12
  }

  static func describe(_ data: Data) -> String {
    let head = data.prefix(64)
    if head.starts(with: [0x50, 0x4b, 0x03, 0x04]) || head.starts(with: [0x50, 0x4b, 0x05, 0x06]) {
      return "a zip archive (starts with 'PK')"
    }
    if head.starts(with: [0x1f, 0x8b]) { return "gzip data" }
    let text = head.allSatisfy { (0x20..<0x7f).contains($0) || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
    if text {
      // Whitespace runs collapse so a pretty-printed file still shows its first words.
      let words = String(decoding: head, as: UTF8.self).split(whereSeparator: \.isWhitespace)
      let opening = "'" + words.joined(separator: " ").prefix(16).trimmingCharacters(in: .whitespaces) + "'"
      if let first = words.first?.first, first == "{" || first == "[" {
        return "JSON text (starts with \(opening))"
      }
      return "text (starts with \(opening))"
    }
    let hex = head.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
    return "binary data starting with \(hex)"
  }
}
