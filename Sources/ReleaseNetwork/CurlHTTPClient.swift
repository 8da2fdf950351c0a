import CCurlShim
import Foundation
import ReleaseSystem

/// `HTTPClient` on libcurl. One easy handle per attempt, nothing shared but immutable
/// configuration, so one client may serve many threads at once.
public struct CurlHTTPClient: HTTPClient {
  public var retryPolicy: RetryPolicy
  /// Longest wait for a connection (TCP and TLS) to be established.
  public var connectTimeout: TimeInterval
  /// A transfer slower than `lowSpeedLimit` bytes/s for `lowSpeedTime` seconds is abandoned
  /// (and retried): catches stalled connections without capping how long a large upload may take.
  public var lowSpeedLimit: Int
  public var lowSpeedTime: TimeInterval
  /// The proxies, from the environment the run read at start (by default the process's as it
  /// is now): libcurl never reads them from the process environment itself.
  public var proxies: CurlProxies

  public init(
    retryPolicy: RetryPolicy = RetryPolicy(), connectTimeout: TimeInterval = 10, lowSpeedLimit: Int = 1024,
    lowSpeedTime: TimeInterval = 30,
    proxies: CurlProxies = CurlProxies(environment: ProcessInfo.processInfo.environment)
  ) {
    self.retryPolicy = retryPolicy
    self.connectTimeout = connectTimeout
    self.lowSpeedLimit = lowSpeedLimit
    self.lowSpeedTime = lowSpeedTime
    self.proxies = proxies
  }

  public func send(_ request: HTTPRequest) throws -> HTTPResponse {
    do {
      return try sendWithRetries(request)
    } catch let error as NetworkError {
      // libcurl and servers have no reason to echo a secret, but an error message is the
      // one place a leak would be printed, so make sure.
      var secrets = proxies.credentials
      if let signing = request.signing {
        secrets +=
          [signing.credentials.secretAccessKey] + (signing.credentials.sessionToken.map { [$0] } ?? [])
      }
      throw secrets.reduce(error) { $0.redacting($1) }
    }
  }

  private func sendWithRetries(_ request: HTTPRequest) throws -> HTTPResponse {
    precondition(
      request.method == .put || request.body == .empty, "\(request.method.rawValue) requests carry no body")
    var temporaryFile: URL?
    if case .file(let destination) = request.destination {
      try AtomicFile.createDirectory(destination.deletingLastPathComponent())
      temporaryFile = AtomicFile.temporarySibling(of: destination)
    }
    // Whatever happens, no partial download is left behind (after a rename it is gone already).
    defer { if let temporaryFile { unlink(temporaryFile.path) } }

    let method = request.method.rawValue
    let displayURL = NetworkError.displayString(for: request.url)
    var attempt = 1
    while true {
      let canRetry = attempt < retryPolicy.maximumAttempts
      switch try perform(request, writingTo: temporaryFile) {
      case .failed(let code, let reason):
        if canRetry && Self.isTransient(code) { break }
        throw NetworkError.transferFailed(method: method, url: displayURL, reason: reason, attempts: attempt)
      case .answered(let response, let transfer):
        let accepted = request.acceptedStatuses.contains(response.status)
        if !accepted && (500...599).contains(response.status) && canRetry { break }
        guard accepted else {
          let (code, message) = S3ErrorDocument.codeAndMessage(in: response.body)
          throw NetworkError.unexpectedStatus(
            method: method, url: displayURL, status: response.status,
            expected: NetworkError.describe(request.acceptedStatuses), serverCode: code,
            serverMessage: message,
            attempts: attempt)
        }
        if let temporaryFile, case .file(let destination) = request.destination,
          (200...299).contains(response.status)
        {
          try transfer.ensureResponseFileExists()
          try AtomicFile.rename(temporaryFile, to: destination)
        }
        return response
      }
      retryPolicy.sleep(retryPolicy.delay(afterAttempt: attempt))
      attempt += 1
    }
  }

  private enum Outcome {
    case failed(CURLcode, reason: String)
    case answered(HTTPResponse, CurlTransfer)
  }

  /// Failures worth another attempt: the network or the server's front end hiccuped.
  /// Not among them: malformed URLs, refused protocols, TLS verification, local file errors.
  private static let transientFailures: [CURLcode] = [
    CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT,
    CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_SSL_CONNECT_ERROR,
    CURLE_HTTP2, CURLE_HTTP2_STREAM,
  ]

  private static func isTransient(_ code: CURLcode) -> Bool { transientFailures.contains(code) }

  /// One attempt. Throws only for local problems (files, libcurl setup); network and
  /// server failures come back as an outcome for the retry loop to judge.
  private func perform(_ request: HTTPRequest, writingTo responseFile: URL?) throws -> Outcome {
    let handle = try CurlEasyHandle(
      method: request.method.rawValue, displayURL: NetworkError.displayString(for: request.url))
    let transfer = try CurlTransfer(body: request.body, responseFile: responseFile)
    defer { transfer.closeFiles() }
    transfer.maximumBodySize = request.maximumResponseSize
    transfer.displayLocation = NetworkError.displayString(for: request.url)

    let headerList = try setHeaders(of: request, on: handle)
    try setOptions(of: request, on: handle, uploadSize: transfer.uploadSize)
    try setCallbacks(on: handle, to: transfer)

    let (code, detail) = withExtendedLifetime((transfer, headerList)) { handle.perform() }
    return try outcome(of: request, code: code, detail: detail, handle: handle, transfer: transfer)
  }

  /// The request's headers and, when it is signed, its AWS SigV4 signing; the list returned
  /// must outlive the transfer.
  private func setHeaders(of request: HTTPRequest, on handle: CurlEasyHandle) throws -> CurlHeaderList {
    var headerLines = request.headers.map { "\($0.key): \($0.value)" }
    if let signing = request.signing {
      try handle.set(CURLOPT_AWS_SIGV4, "aws:amz:\(signing.region):\(signing.service)")
      // Separate options rather than CURLOPT_USERPWD: a secret containing ':' stays whole.
      try handle.set(CURLOPT_USERNAME, signing.credentials.accessKeyID)
      try handle.set(CURLOPT_PASSWORD, signing.credentials.secretAccessKey)
      if let token = signing.credentials.sessionToken { headerLines.append("x-amz-security-token: \(token)") }
    } else {
      // An empty Expect: stops libcurl from waiting for "100 Continue" before each upload.
      // Not when signing: libcurl 7.88 signs the empty header and then does not send it, so
      // the server's signature differs; there the short timeout below does the job.
      headerLines.append("Expect:")
    }
    try handle.set(CURLOPT_EXPECT_100_TIMEOUT_MS, 100)
    let headerList = CurlHeaderList(headerLines)
    try handle.set(CURLOPT_HTTPHEADER, pointer: headerList.pointer)
    return headerList
  }

  /// The URL, allowed protocols, size limit, redirects, timeouts and method.
  private func setOptions(of request: HTTPRequest, on handle: CurlEasyHandle, uploadSize: Int64) throws {
    try handle.set(CURLOPT_URL, request.url.absoluteString)
    try handle.set(CURLOPT_PROTOCOLS_STR, "http,https,file")
    try handle.set(CURLOPT_REDIR_PROTOCOLS_STR, request.redirectProtocols)
    if let limit = request.maximumResponseSize {
      // Refused before a byte arrives when the server announces more (Content-Length); the
      // write callback stops the rest.
      try handle.set(CURLOPT_MAXFILESIZE_LARGE, offset: limit)
    }
    // Signed requests do not follow redirects: libcurl would not sign the request to another
    // host, and S3's own redirect (301 PermanentRedirect, wrong region) says more as an error.
    try handle.set(CURLOPT_FOLLOWLOCATION, request.signing == nil ? 1 : 0)
    try handle.set(CURLOPT_MAXREDIRS, 5)
    // No signals: libcurl's default DNS timeout uses SIGALRM, which is unsafe with threads.
    try handle.set(CURLOPT_NOSIGNAL, 1)
    try handle.set(CURLOPT_CONNECTTIMEOUT_MS, Int(connectTimeout * 1000))
    try handle.set(CURLOPT_LOW_SPEED_LIMIT, lowSpeedLimit)
    try handle.set(CURLOPT_LOW_SPEED_TIME, Int(lowSpeedTime.rounded(.up)))
    try handle.set(CURLOPT_USERAGENT, "release")
    // Always set, so libcurl never reads the process environment: "" is no proxy.
    try handle.set(CURLOPT_PROXY, proxies.proxy(for: request.url) ?? "")
    try handle.set(CURLOPT_NOPROXY, proxies.noProxy ?? "")

    switch request.method {
    case .get: try handle.set(CURLOPT_HTTPGET, 1)
    case .head: try handle.set(CURLOPT_NOBODY, 1)
    case .put:
      try handle.set(CURLOPT_UPLOAD, 1)
      try handle.set(CURLOPT_INFILESIZE_LARGE, offset: uploadSize)
    case .delete: try handle.set(CURLOPT_CUSTOMREQUEST, "DELETE")
    }
  }

  /// The header, write and read callbacks, all on `transfer`.
  private func setCallbacks(on handle: CurlEasyHandle, to transfer: CurlTransfer) throws {
    let context = Unmanaged.passUnretained(transfer).toOpaque()
    try handle.set(CURLOPT_HEADERFUNCTION, callback: CurlTransfer.headerCallback)
    try handle.set(CURLOPT_HEADERDATA, pointer: context)
    try handle.set(CURLOPT_WRITEFUNCTION, callback: CurlTransfer.writeCallback)
    try handle.set(CURLOPT_WRITEDATA, pointer: context)
    try handle.set(CURLOPT_READFUNCTION, callback: CurlTransfer.readCallback)
    try handle.set(CURLOPT_READDATA, pointer: context)
  }

  /// What the attempt came to, once libcurl is done with it.
  private func outcome(
    of request: HTTPRequest, code: CURLcode, detail: String, handle: CurlEasyHandle, transfer: CurlTransfer
  ) throws -> Outcome {
    if let localError = transfer.localError { throw localError }
    if transfer.errorBodyCut {
      // Stopped on purpose after the first bytes of an error document: the answer is its status.
      return .answered(
        HTTPResponse(status: handle.responseCode, headers: transfer.headers, body: transfer.body), transfer)
    }
    if code == CURLE_FILESIZE_EXCEEDED, let limit = request.maximumResponseSize {
      // An error document longer than the limit: the limit is the object's, the answer the status.
      let status = handle.responseCode
      if !request.url.isFileURL, status >= 300 {
        return .answered(
          HTTPResponse(status: status, headers: transfer.headers, body: transfer.body), transfer)
      }
      // The server announced more than the limit (Content-Length): refused before the body.
      throw SystemError.tooLarge(location: NetworkError.displayString(for: request.url), limit: limit)
    }
    guard code == CURLE_OK else {
      let summary = String(cString: curl_easy_strerror(code))
      return .failed(code, reason: detail.isEmpty ? summary : "\(summary): \(detail)")
    }
    // file: URLs have no status; libcurl reports 0 for a successful read.
    let status = request.url.isFileURL ? 200 : handle.responseCode
    return .answered(HTTPResponse(status: status, headers: transfer.headers, body: transfer.body), transfer)
  }
}

/// `curl_global_init`, exactly once per process (Swift initialises globals once, thread-safely).
private enum CurlGlobal {
  static let initializationFailure: String? = {
    let code = curl_global_init(Int(CURL_GLOBAL_ALL))
    return code == CURLE_OK
      ? nil : "libcurl failed to initialise: \(String(cString: curl_easy_strerror(code)))"
  }()
}

/// An easy handle and its error buffer, both released with it. Setup failures are thrown as
/// `NetworkError`s about the request the handle is for.
private final class CurlEasyHandle {
  private let handle: UnsafeMutableRawPointer
  private let errorBuffer: UnsafeMutablePointer<CChar>
  private let method: String
  private let displayURL: String

  init(method: String, displayURL: String) throws {
    self.method = method
    self.displayURL = displayURL
    if let failure = CurlGlobal.initializationFailure {
      throw NetworkError.transferFailed(method: method, url: displayURL, reason: failure, attempts: 1)
    }
    guard let handle = curl_easy_init() else {
      throw NetworkError.transferFailed(
        method: method, url: displayURL, reason: "libcurl could not create a handle", attempts: 1)
    }
    self.handle = handle
    errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
    errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
  }

  deinit {
    curl_easy_cleanup(handle)
    errorBuffer.deallocate()
  }

  func set(_ option: CURLoption, _ value: Int) throws {
    try check(option, ccurl_easy_setopt_long(handle, option, value))
  }

  func set(_ option: CURLoption, offset value: Int64) throws {
    try check(option, ccurl_easy_setopt_offset(handle, option, curl_off_t(value)))
  }

  func set(_ option: CURLoption, _ value: String) throws {
    try check(option, ccurl_easy_setopt_string(handle, option, value))
  }

  func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws {
    try check(option, ccurl_easy_setopt_pointer(handle, option, value))
  }

  func set(_ option: CURLoption, callback value: ccurl_data_callback) throws {
    try check(option, ccurl_easy_setopt_callback(handle, option, value))
  }

  /// Runs the transfer; returns libcurl's result and its detailed message (may be empty).
  func perform() -> (CURLcode, String) {
    let code = curl_easy_perform(handle)
    return (code, String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines))
  }

  var responseCode: Int {
    var code = 0
    _ = ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
    return code
  }

  /// A rejected option means a libcurl too old, or built without a feature this client needs.
  private func check(_ option: CURLoption, _ code: CURLcode) throws {
    guard code == CURLE_OK else {
      let version = curl_version().map { String(cString: $0) } ?? "(unknown version)"
      throw NetworkError.transferFailed(
        method: method, url: displayURL,
        reason: "\(version) rejected option \(option.rawValue): \(String(cString: curl_easy_strerror(code)))",
        attempts: 1)
    }
  }
}

/// A `curl_slist` of header lines, freed with it.
private final class CurlHeaderList {
  private(set) var pointer: UnsafeMutableRawPointer?

  init(_ lines: [String]) {
    var list: UnsafeMutablePointer<curl_slist>?
    for line in lines { list = curl_slist_append(list, line) }
    pointer = UnsafeMutableRawPointer(list)
  }

  deinit { curl_slist_free_all(pointer?.assumingMemoryBound(to: curl_slist.self)) }
}
