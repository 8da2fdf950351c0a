import CCurlShim
import Foundation
import ReleaseSystem

/// The state of one libcurl transfer (one attempt of one request), shared with the C
/// callbacks through their context pointer. Confined to the thread running the transfer.
final class CurlTransfer {
  private enum Source {
    case none
    case data(Data, offset: Int)
    case file(descriptor: Int32, path: String)
  }

  /// Non-2xx bodies (error documents) are kept this far, for the error message; then the
  /// transfer is stopped.
  static let errorBodyLimit = 64 * 1024

  private var source: Source
  /// Bytes the upload will send, for Content-Length.
  let uploadSize: Int64
  private let responseFile: URL?
  private var responseDescriptor: Int32 = -1

  /// Status of the latest response seen (redirects and `100 Continue` come before the final
  /// one); nil until a status line arrives, and for `file:` URLs, which have none.
  private(set) var status: Int?
  private(set) var headers: [String: String] = [:]
  private(set) var body = Data()
  /// A local file failure inside a callback, which libcurl only reports as an abort.
  private(set) var localError: SystemError?
  /// The transfer was stopped because an error document passed `errorBodyLimit`: the response
  /// is its status with the body kept so far, not a failed transfer.
  private(set) var errorBodyCut = false
  /// The most body bytes of a successful response this transfer accepts, and for messages
  /// where they come from.
  var maximumBodySize: Int64?
  var displayLocation = ""
  private var receivedBodyBytes: Int64 = 0

  /// Opens the body file, if any; `responseFile` is where 2xx bodies are written (truncated
  /// first, so a previous attempt's partial bytes never survive).
  init(body: HTTPRequestBody, responseFile: URL?) throws {
    switch body {
    case .empty:
      source = .none
      uploadSize = 0
    case .data(let data):
      source = .data(data, offset: 0)
      uploadSize = Int64(data.count)
    case .file(let url):
      // An upload of a model from the store: never blocks, and only a regular file is sent.
      let (descriptor, size) = try RegularFile.descriptor(url)
      source = .file(descriptor: descriptor, path: url.path)
      uploadSize = size
    }
    self.responseFile = responseFile
    if let responseFile { unlink(responseFile.path) }
  }

  func closeFiles() {
    if case .file(let descriptor, _) = source { _ = close(descriptor) }
    source = .none
    if responseDescriptor >= 0 { _ = close(responseDescriptor) }
    responseDescriptor = -1
  }

  /// Whether the body now arriving is an error document: its status is known and not 2xx.
  private var isErrorDocument: Bool { status.map { !(200...299).contains($0) } ?? false }

  /// For a 2xx with an empty body the write callback never runs: the file must still exist.
  func ensureResponseFileExists() throws {
    guard let responseFile, responseDescriptor < 0, !FileManager.default.fileExists(atPath: responseFile.path)
    else { return }
    guard FileManager.default.createFile(atPath: responseFile.path, contents: nil) else {
      throw SystemError.cannotWrite(path: responseFile.path, reason: "cannot create file")
    }
  }

  // MARK: Callbacks

  fileprivate func receiveHeader(_ line: String) {
    let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.hasPrefix("HTTP/") {
      // A new response begins (after a redirect or an interim 1xx): forget the previous one.
      status = trimmed.split(separator: " ").dropFirst().first.flatMap { Int($0) }
      headers = [:]
      body = Data()
      if responseDescriptor >= 0 {
        _ = ftruncate(responseDescriptor, 0)
        _ = lseek(responseDescriptor, 0, SEEK_SET)
      }
      return
    }
    guard let colon = trimmed.firstIndex(of: ":") else { return }
    let name = trimmed[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
    let value = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    headers[name] = headers[name].map { "\($0), \(value)" } ?? value
  }

  /// Returns false to make libcurl abort the transfer.
  fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
    if isErrorDocument {
      // Read for its message only, whatever the destination: a body that never ends (an
      // endless chunked 404) must cost neither memory nor time.
      let room = Self.errorBodyLimit - body.count
      body.append(contentsOf: bytes.prefix(max(0, room)))
      if bytes.count > room {
        errorBodyCut = true
        return false
      }
      return true
    }
    if let maximumBodySize {
      receivedBodyBytes += Int64(bytes.count)
      if receivedBodyBytes > maximumBodySize {
        localError = .tooLarge(location: displayLocation, limit: maximumBodySize)
        return false
      }
    }
    // A 2xx body, or a `file:` read (no status).
    guard let responseFile else {
      body.append(contentsOf: bytes)
      return true
    }
    if responseDescriptor < 0 {
      responseDescriptor = open(responseFile.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      if responseDescriptor < 0 {
        localError = .cannotWrite(path: responseFile.path, reason: Self.lastErrno())
        return false
      }
    }
    var written = 0
    while written < bytes.count {
      let result = write(responseDescriptor, bytes.baseAddress! + written, bytes.count - written)
      if result < 0 {
        if errno == EINTR { continue }
        localError = .cannotWrite(path: responseFile.path, reason: Self.lastErrno())
        return false
      }
      written += result
    }
    return true
  }

  /// Fills `buffer` with the next upload bytes; nil means a read failure (abort).
  fileprivate func provideBody(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
    switch source {
    case .none:
      return 0
    case .data(let data, let offset):
      let count = min(buffer.count, data.count - offset)
      let start = data.startIndex + offset
      data.copyBytes(to: buffer, from: start..<start + count)
      source = .data(data, offset: offset + count)
      return count
    case .file(let descriptor, let path):
      while true {
        let result = read(descriptor, buffer.baseAddress, buffer.count)
        if result >= 0 { return result }
        if errno == EINTR { continue }
        localError = .cannotRead(path: path, reason: Self.lastErrno())
        return nil
      }
    }
  }

  private static func lastErrno() -> String { String(cString: strerror(errno)) }

  static func from(_ context: UnsafeMutableRawPointer?) -> CurlTransfer {
    Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
  }

  static let headerCallback: ccurl_data_callback = { buffer, size, count, context in
    let length = size * count
    guard let buffer else { return length }
    let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: length), as: UTF8.self)
    CurlTransfer.from(context).receiveHeader(line)
    return length
  }

  static let writeCallback: ccurl_data_callback = { buffer, size, count, context in
    let length = size * count
    guard let buffer else { return length }
    let accepted = CurlTransfer.from(context).receiveBody(
      UnsafeRawBufferPointer(start: buffer, count: length))
    return accepted ? length : 0
  }

  static let readCallback: ccurl_data_callback = { buffer, size, count, context in
    let bytes = UnsafeMutableRawBufferPointer(start: buffer, count: size * count)
    return CurlTransfer.from(context).provideBody(into: bytes) ?? Int(CURL_READFUNC_ABORT)
  }
}
