import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for the updater's tests, so they run the SDK's real
/// network code against a real socket on any machine (no Python, no network): fixed responses
/// by path, one connection at a time on a thread of its own, `Connection: close`. Test-only.
final class LocalHTTPServer: @unchecked Sendable {
  // @unchecked: `routes`, `requested` and `sent` are read and written only while holding `lock`;
  // `listener` and `port` are set once in init, before the serving thread starts.
  private let lock = NSLock()
  private var routes: [String: (status: Int, body: Data, announcesLength: Bool, paced: Bool, location: String?)] = [:]
  private var entityTags: [String: String] = [:]
  private var requested: [String] = []
  private var conditions: [String?] = []
  private var sent: [String: Int] = [:]
  private var stopped = false
  private let listener: Int32
  let port: UInt16

  init() throws {
    #if os(Linux)
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw ServerError("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard bound, listen(descriptor, 16) == 0 else {
      close(descriptor)
      throw ServerError("bind/listen on 127.0.0.1: \(String(cString: strerror(errno)))")
    }
    listener = descriptor
    port = UInt16(bigEndian: address.sin_port)
    Thread.detachNewThread { [self] in serve() }
  }

  struct ServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }

  /// `announcesLength: false` sends no Content-Length: the body ends when the connection
  /// closes, so the client learns its size only as the bytes arrive. `paced` sends 64 KiB
  /// every 10 ms, as a network would, rather than all at once into the socket: a client that
  /// stops reading then stops the transfer.
  /// With `entityTag`, a 200 answer carries it as `ETag`, and a request whose
  /// `If-None-Match` is that tag is answered 304 with no body.
  func route(
    _ path: String, status: Int = 200, body: Data, announcesLength: Bool = true, paced: Bool = false,
    entityTag: String? = nil
  ) {
    lock.lock()
    routes[path] = (status, body, announcesLength, paced, nil)
    entityTags[path] = entityTag
    lock.unlock()
  }

  /// Each request's `If-None-Match` value (nil: none), in the order they came.
  var ifNoneMatchValues: [String?] {
    lock.lock()
    defer { lock.unlock() }
    return conditions
  }

  /// Answers `path` with a 302 to `location`.
  func redirect(_ path: String, to location: String) {
    lock.lock()
    routes[path] = (302, Data(), true, false, location)
    lock.unlock()
  }

  /// Bytes of the last response to `path` the client took before it closed the connection
  /// (the whole response when it read it all).
  /// How many bytes the response to `path` sent before it ended (all of them, or the client
  /// closed the connection); waits up to `seconds` for it to end, nil if it did not.
  func bytesSent(_ path: String, within seconds: Double) -> Int? {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
      lock.lock()
      let total = sent[path]
      lock.unlock()
      if total != nil || Date() >= deadline { return total }
      usleep(10_000)
    }
  }

  var requestedPaths: [String] {
    lock.lock()
    defer { lock.unlock() }
    return requested
  }

  func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

  /// The same server under another origin (another host name for this device).
  func otherOriginURL(_ path: String) -> URL { URL(string: "http://localhost:\(port)\(path)")! }

  /// Stops accepting: later requests find nothing listening (connection refused). The serving
  /// thread closes the listener itself when it sees this: were it closed here, a thread still
  /// busy with a response could go back to accepting on the same descriptor number, reused by
  /// the next test's server, and answer that test's requests from this one's routes.
  /// Safe to call twice (the "server down" test stops it, then tearDown does): a second
  /// `shutdown` could hit the descriptor number once the serving thread has closed it and
  /// another socket has taken it.
  func stop() {
    lock.lock()
    defer { lock.unlock() }
    guard !stopped else { return }
    stopped = true
    shutdown(listener, Int32(SHUT_RDWR))
  }

  private func serve() {
    while true {
      let connection = accept(listener, nil, nil)
      let failure = errno
      lock.lock()
      let stop = stopped
      lock.unlock()
      // A signal or a client that gave up is no reason to stop serving.
      if connection < 0 && !stop && (failure == EINTR || failure == ECONNABORTED) { continue }
      if connection < 0 || stop {
        if connection >= 0 { close(connection) }
        close(listener)
        return
      }
      handle(connection)
      close(connection)
    }
  }

  private func handle(_ connection: Int32) {
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var request = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while request.count < 65536, !request.contains(Data("\r\n\r\n".utf8)) {
      let count = recv(connection, &buffer, buffer.count, 0)
      if count <= 0 { return }
      request.append(contentsOf: buffer[0..<count])
    }
    let firstLine = String(decoding: request.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
    let parts = firstLine.split(separator: " ")
    let path = parts.count >= 2 ? String(parts[1]) : "/"
    let condition = String(decoding: request, as: UTF8.self).split(separator: "\r\n").first {
      $0.lowercased().hasPrefix("if-none-match:")
    }.map { $0.dropFirst("if-none-match:".count).trimmingCharacters(in: .whitespaces) }
    lock.lock()
    requested.append(path)
    conditions.append(condition)
    var response = routes[path] ?? (404, Data("not found".utf8), true, false, nil)
    let entityTag = entityTags[path]
    lock.unlock()
    if let entityTag, condition == entityTag { response = (304, Data(), true, false, nil) }
    let reason = response.status == 200 ? "OK" : response.status == 304 ? "Not Modified" : "Error"
    let length = response.announcesLength ? "Content-Length: \(response.body.count)\r\n" : ""
    let location = response.location.map { "Location: \($0)\r\n" } ?? ""
    let tag = entityTag.map { "ETag: \($0)\r\n" } ?? ""
    var bytes = Data(
      "HTTP/1.1 \(response.status) \(reason)\r\n\(length)\(location)\(tag)Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
        .utf8)
    bytes.append(response.body)
    // A client that stops reading closes the connection: a write then fails (EPIPE), and must
    // not raise SIGPIPE in the test process.
    #if os(Linux)
      let flags = Int32(MSG_NOSIGNAL)
    #else
      var one: Int32 = 1
      setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
      let flags: Int32 = 0
    #endif
    let total = bytes.withUnsafeBytes { raw -> Int in
      var sent = 0
      while sent < raw.count {
        let chunk = response.paced ? min(65536, raw.count - sent) : raw.count - sent
        let count = send(connection, raw.baseAddress! + sent, chunk, flags)
        if count <= 0 { break }
        sent += count
        if response.paced { usleep(10_000) }
      }
      return sent
    }
    lock.lock()
    sent[path] = total
    lock.unlock()
  }
}
