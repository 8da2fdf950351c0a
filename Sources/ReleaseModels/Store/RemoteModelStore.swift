import Foundation
import ReleaseNetwork
import ReleaseSystem

/// A model store on a server: `--models https://host/prefix` (or plain http) or
/// `--models s3://bucket/prefix` (signed, with `--s3-endpoint` and the `AWS_*` credentials).
///
/// The store's `index.json` (the format of the repository's `models/index.json`: a `models`
/// array of `flowName`, `modelVersion`, `path`, `sha256`, `size`) is downloaded once, when the
/// store is opened, and is the only listing: flows and versions come from it. A model is
/// downloaded through libcurl on first use into a content-addressed cache,
/// `<cache>/models/<sha256>.mlmodel`, and is accepted only when its SHA-256 is the one the
/// index gives; a cached file with the right digest is used without any network access.
public struct RemoteModelStore: ModelStore {
  public enum Source: Sendable {
    case http(base: URL, client: HTTPClient)
    case s3(client: S3Client, prefix: String)
  }

  struct Entry: Sendable, Equatable {
    let reference: ModelReference
    /// Path of the model below the store, from the index.
    let path: String
    let sha256: String
    let size: Int64?
  }

  /// The most bytes an `index.json` may have: far more than any real store's listing.
  static let maximumIndexSize: Int64 = 16 * 1024 * 1024

  public let displayName: String
  let source: Source
  /// `<cache>/models`.
  let cacheDirectory: URL
  let entries: [ModelReference: Entry]
  /// Bytes a model may have (`--max-model-size`); one whose index entry gives a size may have
  /// exactly that, which is never more (the index is refused otherwise).
  let maximumModelSize: Int64

  /// Opens the store: downloads and validates its `index.json`.
  public init(displayName: String, source: Source, cacheDirectory: URL, maximumModelSize: Int64) throws {
    self.displayName = displayName
    self.source = source
    self.cacheDirectory = cacheDirectory
    self.maximumModelSize = maximumModelSize
    let indexLocation = Self.join(displayName, "index.json")
    let data: Data
    do {
      data = try Self.fetchData("index.json", from: source, maximumSize: Self.maximumIndexSize)
    } catch {
      throw RemoteModelStoreError.indexUnavailable(location: indexLocation, reason: "\(error)")
    }
    entries = try Self.parseIndex(data, location: indexLocation, maximumModelSize: maximumModelSize)
  }

  public func flowNames() throws -> [String] {
    Set(entries.keys.map(\.flowName)).sorted()
  }

  public func versions(of flowName: String) throws -> [Int] {
    entries.keys.filter { $0.flowName == flowName }.map(\.version).sorted()
  }

  /// From the index: the scan for other customers' models needs every model's digest, and
  /// downloading the whole store for it would cost a transfer of everything on every run.
  public func sha256(of reference: ModelReference) throws -> String {
    guard let entry = entries[reference] else {
      throw RemoteModelStoreError.modelNotFound(
        store: displayName, reference: reference, available: try versions(of: reference.flowName),
        flows: try flowNames())
    }
    return entry.sha256
  }

  public func localFile(for reference: ModelReference) throws -> URL {
    guard let entry = entries[reference] else {
      throw RemoteModelStoreError.modelNotFound(
        store: displayName, reference: reference, available: try versions(of: reference.flowName),
        flows: try flowNames())
    }
    let cached = cacheDirectory.appendingPathComponent("\(entry.sha256).mlmodel")
    // Content-addressed: a file under this name with these bytes is this model, whoever
    // put it there. One that does not hash right (a damaged cache) is fetched again.
    if FileManager.default.fileExists(atPath: cached.path),
      (try? SHA256Digest.hex(ofFileAt: cached)) == entry.sha256
    {
      return cached
    }
    try AtomicFile.createDirectory(cacheDirectory)
    // What runs that were killed (SIGKILL, a power cut) left half-done; their pids are gone.
    AtomicFile.removeAbandonedTemporaries(in: cacheDirectory)
    // A temporary of this run until checked and renamed: an interrupt removes it with the others.
    let download = AtomicFile.temporarySibling(of: cached)
    defer { try? FileManager.default.removeItem(at: download) }
    let location = Self.join(displayName, entry.path)
    do {
      // The index's size is enforced while downloading: a server sending more is cut off. The
      // index cannot raise the limit (it is refused when it claims more); this is the second
      // line of that.
      try Self.fetch(
        entry.path, from: source, to: download,
        maximumSize: min(entry.size ?? maximumModelSize, maximumModelSize))
    } catch SystemError.tooLarge(_, let limit) {
      // Not the model the index describes: bad input, like a wrong digest.
      throw RemoteModelStoreError.tooLarge(reference: reference, location: location, limit: limit)
    } catch {
      throw RemoteModelStoreError.downloadFailed(reference: reference, location: location, reason: "\(error)")
    }
    FaultPoint.pause("model.downloaded")
    let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: download)
    guard sha256 == entry.sha256 else {
      throw RemoteModelStoreError.digestMismatch(
        reference: reference, location: location, expected: entry.sha256, found: sha256, size: size)
    }
    try AtomicFile.rename(download, to: cached)
    return cached
  }

  // MARK: Transfers

  private static func fetchData(_ path: String, from source: Source, maximumSize: Int64) throws -> Data {
    switch source {
    case .http(let base, let client):
      return try client.send(request(try url(base, path), maximumSize: maximumSize)).body
    case .s3(let client, let prefix):
      return try client.getData(prefix.isEmpty ? path : "\(prefix)/\(path)", maximumSize: maximumSize)
    }
  }

  private static func fetch(_ path: String, from source: Source, to file: URL, maximumSize: Int64) throws {
    switch source {
    case .http(let base, let client):
      var get = request(try url(base, path), maximumSize: maximumSize)
      get.destination = .file(file)
      _ = try client.send(get)
    case .s3(let client, let prefix):
      try client.get(prefix.isEmpty ? path : "\(prefix)/\(path)", to: file, maximumSize: maximumSize)
    }
  }

  /// A GET that stays on TLS: a redirect may lead only to https (the store URL itself may be
  /// plain http only on this machine, for tests). `release ota evaluate` downloads an
  /// outcomes file the same way.
  public static func request(_ url: URL, maximumSize: Int64) -> HTTPRequest {
    var request = HTTPRequest(.get, url)
    request.maximumResponseSize = maximumSize
    request.redirectProtocols = "https"
    return request
  }

  private static func url(_ base: URL, _ path: String) throws -> URL {
    guard let url = URL(string: join(base.absoluteString, path)) else {
      throw RemoteModelStoreError.invalidIndex(
        location: join(base.absoluteString, "index.json"), problems: ["\(path): not a URL path"])
    }
    return url
  }

  static func join(_ base: String, _ path: String) -> String {
    base.hasSuffix("/") ? base + path : base + "/" + path
  }

  // MARK: Index

  private struct IndexFile: Decodable {
    public struct Model: Decodable {
      var flowName: String
      var modelVersion: Int
      var path: String
      var sha256: String
      var size: Int64?
    }
    var models: [Model]
  }

  private static let pathCharacters = Set(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")

  static func parseIndex(_ data: Data, location: String, maximumModelSize: Int64) throws
    -> [ModelReference: Entry]
  {
    let file: IndexFile
    do { file = try JSONDecoder().decode(IndexFile.self, from: data) } catch {
      throw RemoteModelStoreError.invalidIndex(
        location: location,
        problems: [
          "expected {\"models\": [{\"flowName\", \"modelVersion\", \"path\", \"sha256\"}]} (\(error))"
        ])
    }
    var entries: [ModelReference: Entry] = [:]
    var problems: [String] = []
    for (index, model) in file.models.enumerated() {
      let at = "models[\(index)]"
      let reference = ModelReference(flowName: model.flowName, version: model.modelVersion)
      let segments = model.path.split(separator: "/", omittingEmptySubsequences: false)
      // A flow name is a directory name of the store and is printed: no line breaks or other
      // controls, which could start a line of their own where the name is shown.
      if model.flowName.isEmpty || model.flowName.contains("/") || model.flowName.hasPrefix(".")
        || model.flowName.unicodeScalars.contains(where: { $0 == "\t" || TerminalText.needsEscape($0) })
      {
        problems.append("\(at).flowName: \"\(model.flowName)\" is not a flow name")
      } else if model.modelVersion < 0 {
        problems.append("\(at).modelVersion: \(model.modelVersion) is negative")
      } else if model.path.isEmpty || !model.path.allSatisfy(pathCharacters.contains)
        || segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
      {
        problems.append(
          "\(at).path: \"\(model.path)\" is not a relative path of letters, digits, '-', '.', '_', '~' and '/'"
        )
      } else if model.sha256.count != 64 || !model.sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) {
        problems.append("\(at).sha256: expected 64 lower-case hex digits, found \"\(model.sha256)\"")
      } else if let size = model.size, size < 0 {
        problems.append("\(at).size: \(size) is negative")
      } else if let size = model.size, size > maximumModelSize {
        problems.append(
          "\(at).size: \(size) bytes is more than --max-model-size allows (\(maximumModelSize) bytes)")
      } else if entries[reference] != nil {
        problems.append("\(at): \(reference) is listed twice")
      } else {
        entries[reference] = Entry(
          reference: reference, path: model.path, sha256: model.sha256, size: model.size)
      }
    }
    if !problems.isEmpty { throw RemoteModelStoreError.invalidIndex(location: location, problems: problems) }
    return entries
  }
}

public enum RemoteModelStoreError: Error, CustomStringConvertible, Equatable {
  case indexUnavailable(location: String, reason: String)
  case invalidIndex(location: String, problems: [String])
  case modelNotFound(store: String, reference: ModelReference, available: [Int], flows: [String])
  case downloadFailed(reference: ModelReference, location: String, reason: String)
  case digestMismatch(
    reference: ModelReference, location: String, expected: String, found: String, size: Int64)
  case tooLarge(reference: ModelReference, location: String, limit: Int64)

  public var description: String { lines.joined(separator: "\n") }

  /// One line per problem of an index, one line otherwise.
  public var lines: [String] {
    if case .invalidIndex(let location, let problems) = self { return problems.map { "\(location): \($0)" } }
    return [line]
  }

  private var line: String {
    switch self {
    case .indexUnavailable(let location, let reason):
      return "\(location): cannot download the model store's index: \(reason)"
    case .invalidIndex(let location, let problems):
      return problems.map { "\(location): \($0)" }.joined(separator: "; ")
    case .modelNotFound(let store, let reference, let available, let flows):
      let file = RemoteModelStore.join(store, reference.relativePath)
      if !available.isEmpty {
        return "\(file): no such model in the store's index.json; \(reference.flowName) has versions "
          + available.map(String.init).joined(separator: ", ")
      }
      let known =
        flows.isEmpty ? "the index lists no flows" : "flows in the index: " + flows.joined(separator: ", ")
      return "\(file): no such model; the store's index.json has no flow \"\(reference.flowName)\" (\(known))"
    case .downloadFailed(let reference, let location, let reason):
      return "\(reference) (\(location)): download failed: \(reason)"
    case .tooLarge(let reference, let location, let limit):
      return
        "\(reference) (\(location)): the server sent more than \(limit) bytes, the size index.json gives (or the --max-model-size limit); the download was stopped, nothing cached"
    case .digestMismatch(let reference, let location, let expected, let found, let size):
      return
        "\(reference) (\(location)): downloaded \(size) bytes with SHA-256 \(found), but index.json says "
        + "\(expected); not cached, not used"
    }
  }
}
