import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One GET with limits, for the updater: a request timeout (how long the server may stay
/// silent), a resource timeout (how long the whole transfer may take), and a size past which
/// the transfer is cut off as the bytes arrive. A server that sends more than the manifest
/// says, or a manifest larger than any manifest, costs the device at most the limit, never the
/// whole body. Only `https://` is fetched (`http://` only from this device itself), and a
/// redirect is followed only within the same origin.
final class BoundedDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  // @unchecked: `received`, `body`, `failure` and `continuation` are touched only while
  // holding `lock`; URLSession calls the delegate methods on its own queue.
  private let lock = NSLock()
  private let limit: Int64
  private let file: FileHandle?
  private var received: Int64 = 0
  private var body = Data()
  private var failure: ModelTransferError?
  private var continuation: CheckedContinuation<Data, Error>?

  private init(limit: Int64, file: FileHandle?) {
    self.limit = limit
    self.file = file
  }

  /// The body of `url` (status 200 only): in memory, or appended to `file` (then the result is
  /// empty). Fails with `ModelTransferError.tooLarge` as soon as more than `limit` bytes are
  /// announced or have arrived.
  static func get(
    _ url: URL, limit: Int64, timeout: TimeInterval, resourceTimeout: TimeInterval, into file: FileHandle? = nil
  ) async throws(ModelTransferError) -> Data {
    guard OTATransport.isAllowed(url) else { throw .insecureURL }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.timeoutIntervalForResource = resourceTimeout
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    let download = BoundedDownload(limit: limit, file: file)
    let session = URLSession(configuration: configuration, delegate: download, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
    request.httpMethod = "GET"
    do {
      return try await withCheckedThrowingContinuation { continuation in
        download.lock.lock()
        download.continuation = continuation
        download.lock.unlock()
        session.dataTask(with: request).resume()
      }
    } catch {
      // The delegate resumes with `ModelTransferError` only.
      throw error as? ModelTransferError ?? .network(error.localizedDescription)
    }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
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

  /// A redirect to another scheme, host or port (so to `http://` as well) is refused: the
  /// transfer fails with `redirectRefused`.
  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    guard let original = task.originalRequest?.url, let target = request.url,
      OTATransport.isSameOrigin(original, target), OTATransport.isAllowed(target)
    else {
      lock.lock()
      if failure == nil { failure = ModelTransferError.redirectRefused(to: request.url?.absoluteString ?? "") }
      lock.unlock()
      completionHandler(nil)
      task.cancel()
      return
    }
    completionHandler(request)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    lock.lock()
    let continuation = self.continuation
    self.continuation = nil
    let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
    let result: Result<Data, Error>
    if let failure {
      result = .failure(failure)
    } else if let error {
      result = .failure(ModelTransferError.network(error.localizedDescription))
    } else if status != 200 {
      result = .failure(ModelTransferError.status(status))
    } else {
      result = .success(body)
    }
    lock.unlock()
    continuation?.resume(with: result)
  }
}
