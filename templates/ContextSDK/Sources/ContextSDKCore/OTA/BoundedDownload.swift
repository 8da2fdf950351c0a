import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One GET with limits, for the updater: a request timeout (how long the server may stay
/// silent), a transfer timeout (how long the whole transfer may take), and a size past which
/// the transfer is cut off as the bytes arrive. A server that sends more than the manifest
/// says, or a manifest larger than any manifest, costs the device at most the limit, never the
/// whole body. Only `https://` is fetched (`http://` only from this device itself), and a
/// redirect is followed only within the same origin.
///
/// Every transfer goes through one URLSession for the app's process (`shared`), whose delegate
/// hands each task's events to its own `BoundedDownload`. Cancelling the Swift task that awaits
/// a transfer cancels the transfer at once.
final class BoundedDownload: @unchecked Sendable {
  // @unchecked: every `var` is touched only while holding `lock`; URLSession calls the
  // delegate on its own queue, and cancellation comes from any thread.
  private let lock = NSLock()
  private let limit: Int64
  private let file: FileHandle?
  private var received: Int64 = 0
  private var body = Data()
  private var failure: ModelTransferError?
  private var continuation: CheckedContinuation<Response, Error>?
  private var conditional = false
  private var task: URLSessionDataTask?
  private var timer: DispatchWorkItem?

  /// What the server answered: 200 with its body (empty when written to a file), or 304 to a
  /// conditional request.
  struct Response: Equatable, Sendable {
    let status: Int
    let body: Data
    /// The response's `ETag`, when it is one a request may send back (printable ASCII, at
    /// most 256 characters).
    let entityTag: String?
  }

  private init(limit: Int64, file: FileHandle?) {
    self.limit = limit
    self.file = file
  }

  /// The body of `url` (status 200 only): in memory, or appended to `file` (then the body is
  /// empty). Fails with `ModelTransferError.tooLarge` as soon as more than `limit` bytes are
  /// announced or have arrived, and with `.cancelled` as soon as the calling task is cancelled.
  /// With `ifNoneMatch`, a 304 answer is a response too.
  static func get(
    _ url: URL, limit: Int64, policy: TransferPolicy, into file: FileHandle? = nil, ifNoneMatch: String? = nil
  ) async throws(ModelTransferError) -> Response {
    guard OTATransport.isAllowed(url) else { throw .insecureURL }
    var request = URLRequest(
      url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: policy.requestTimeout)
    request.httpMethod = "GET"
    if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
    policy.applyNetworkAccess(&request)
    let download = BoundedDownload(limit: limit, file: file)
    do {
      return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          download.start(request, conditional: ifNoneMatch != nil, policy: policy, continuation: continuation)
        }
      } onCancel: {
        download.fail(.cancelled)
      }
    } catch {
      // Only `ModelTransferError` resumes the continuation with a failure.
      throw error as? ModelTransferError ?? .network(error.localizedDescription)
    }
  }

  private func start(
    _ request: URLRequest, conditional: Bool, policy: TransferPolicy,
    continuation: CheckedContinuation<Response, Error>
  ) {
    lock.lock()
    if let failure {
      // Cancelled before the transfer began.
      lock.unlock()
      continuation.resume(throwing: failure)
      return
    }
    self.conditional = conditional
    self.continuation = continuation
    let task = SharedSession.session.dataTask(with: request)
    self.task = task
    let timer = DispatchWorkItem { [weak self] in
      self?.fail(.network("the transfer took longer than \(Int(policy.transferTimeout)) seconds"))
    }
    self.timer = timer
    lock.unlock()
    SharedSession.shared.register(self, for: task)
    DispatchQueue.global().asyncAfter(deadline: .now() + policy.transferTimeout, execute: timer)
    task.resume()
  }

  /// Ends the transfer with `failure` (unless it already ended): the task is cancelled, and the
  /// waiting caller resumes as soon as URLSession reports the end.
  func fail(_ failure: ModelTransferError) {
    lock.lock()
    if self.failure == nil { self.failure = failure }
    let task = self.task
    lock.unlock()
    task?.cancel()
  }

  fileprivate func received(_ data: Data, from dataTask: URLSessionDataTask) {
    lock.lock()
    if failure == nil {
      let status = (dataTask.response as? HTTPURLResponse)?.statusCode ?? 0
      received += Int64(data.count)
      if status != 200 {
        failure = ModelTransferError.status(status)
      } else if received > limit || (dataTask.response?.expectedContentLength ?? -1) > limit {
        failure = ModelTransferError.tooLarge(limit: limit)
      } else if let file {
        do { try file.write(contentsOf: data) } catch { failure = ModelTransferError.install("\(error)") }
      } else {
        body.append(data)
      }
    }
    let stop = failure != nil
    lock.unlock()
    if stop { dataTask.cancel() }
  }

  /// Records the refusal only: the delegate answers URLSession first, then cancels the task
  /// (swift-corelibs-foundation stops the process when a task is cancelled while it waits for
  /// the redirect's answer).
  fileprivate func refuseRedirect(to target: URL?) {
    lock.lock()
    if failure == nil { failure = .redirectRefused(to: target?.absoluteString ?? "") }
    lock.unlock()
  }

  fileprivate func completed(_ task: URLSessionTask, error: Error?) {
    lock.lock()
    let continuation = self.continuation
    self.continuation = nil
    timer?.cancel()
    let response = task.response as? HTTPURLResponse
    let status = response?.statusCode ?? 0
    let result: Result<Response, Error>
    if let failure {
      result = .failure(failure)
    } else if let error {
      result = .failure(ModelTransferError.network(error.localizedDescription))
    } else if status == 200 || (status == 304 && conditional) {
      let tag = response.flatMap { Self.entityTag(of: $0) }
      result = .success(Response(status: status, body: status == 200 ? body : Data(), entityTag: tag))
    } else {
      result = .failure(ModelTransferError.status(status))
    }
    lock.unlock()
    continuation?.resume(with: result)
  }

  /// The `ETag` header, when it is printable ASCII of at most 256 characters: it is sent back
  /// in a request header, and it came from the network.
  static func entityTag(of response: HTTPURLResponse) -> String? {
    let value =
      response.allHeaderFields.first { ($0.key as? String)?.lowercased() == "etag" }?.value as? String
    guard let value, !value.isEmpty, value.utf8.count <= 256,
      value.utf8.allSatisfy({ (0x20...0x7e).contains($0) })
    else { return nil }
    return value
  }
}

/// The one URLSession of the updater, and its delegate, which hands each task's events to the
/// `BoundedDownload` that started it.
final class SharedSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  // @unchecked: `transfers` is touched only while holding `lock`.
  static let shared = SharedSession()

  private let lock = NSLock()
  private var transfers: [Int: BoundedDownload] = [:]
  /// Created once (a static, so once for every thread); lives as long as the process, as
  /// URLSession's documentation asks of a session with a delegate.
  static let session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    // Each transfer has its own deadline (`TransferPolicy.transferTimeout`).
    configuration.timeoutIntervalForResource = 7 * 24 * 60 * 60
    return URLSession(configuration: configuration, delegate: shared, delegateQueue: nil)
  }()

  /// Transfers under way: each one leaves when URLSession reports its end.
  var transfersInFlight: Int {
    lock.lock()
    defer { lock.unlock() }
    return transfers.count
  }

  func register(_ transfer: BoundedDownload, for task: URLSessionTask) {
    lock.lock()
    transfers[task.taskIdentifier] = transfer
    lock.unlock()
  }

  private func transfer(for task: URLSessionTask, removing: Bool = false) -> BoundedDownload? {
    lock.lock()
    defer { lock.unlock() }
    return removing ? transfers.removeValue(forKey: task.taskIdentifier) : transfers[task.taskIdentifier]
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    guard let transfer = transfer(for: dataTask) else { return dataTask.cancel() }
    transfer.received(data, from: dataTask)
  }

  /// A redirect to another scheme, host or port (so to `http://` as well) is refused: the
  /// transfer fails with `redirectRefused`.
  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    guard let original = task.originalRequest?.url, let target = request.url,
      OTATransport.isSameOrigin(original, target), OTATransport.isAllowed(target)
    else {
      transfer(for: task)?.refuseRedirect(to: request.url)
      completionHandler(nil)
      task.cancel()
      return
    }
    completionHandler(request)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    transfer(for: task, removing: true)?.completed(task, error: error)
  }
}
