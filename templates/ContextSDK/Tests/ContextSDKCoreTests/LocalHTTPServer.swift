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
  // @unchecked: `routes`, `requested` and `stopped` are read and written only while holding
  // `lock`; `listener` and `port` are set once in init, before the serving thread starts.
  private let lock = NSLock()
  private var routes: [String: (status: Int, body: Data)] = [:]
  private var requested: [String] = []
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

  func route(_ path: String, status: Int = 200, body: Data) {
    lock.lock()
    routes[path] = (status, body)
    lock.unlock()
  }

  var requestedPaths: [String] {
    lock.lock()
    defer { lock.unlock() }
    return requested
  }

  func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

  /// Stops accepting: later requests find nothing listening (connection refused). Safe to
  /// call twice. Only the serving thread closes the listener, once it has left `accept`:
  /// closing it here would free its descriptor number while that thread may still use it,
  /// and the next test's socket (or a second `stop`) could then be hit by the wrong call.
  func stop() {
    lock.lock()
    defer { lock.unlock() }
    guard !stopped else { return }
    stopped = true
    shutdown(listener, Int32(SHUT_RDWR))
  }

  private var isStopped: Bool {
    lock.lock()
    defer { lock.unlock() }
    return stopped
  }

  private func serve() {
    defer { close(listener) }
    while !isStopped {
      let connection = accept(listener, nil, nil)
      if connection < 0 {
        // A signal or a client that gave up is no reason to stop serving.
        if errno == EINTR || errno == ECONNABORTED { continue }
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
    lock.lock()
    requested.append(path)
    let response = routes[path] ?? (404, Data("not found".utf8))
    lock.unlock()
    let reason = response.status == 200 ? "OK" : "Error"
    var bytes = Data(
      "HTTP/1.1 \(response.status) \(reason)\r\nContent-Length: \(response.body.count)\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
        .utf8)
    bytes.append(response.body)
    bytes.withUnsafeBytes { raw in
      var sent = 0
      while sent < raw.count {
        let count = send(connection, raw.baseAddress! + sent, raw.count - sent, 0)
        if count <= 0 { return }
        sent += count
      }
    }
  }
}
