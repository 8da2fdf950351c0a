import Foundation

/// Failures of the machine around the tool: files, processes, locks. Each renders as one line.
public enum SystemError: Error, CustomStringConvertible, Equatable {
  case cannotRead(path: String, reason: String)
  case cannotWrite(path: String, reason: String)
  case programNotFound(name: String)
  case processFailed(command: String, exitCode: Int32, logPath: String?)
  case locked(path: String, holder: String)

  public var description: String {
    switch self {
    case .cannotRead(let path, let reason): return "\(path): cannot read: \(reason)"
    case .cannotWrite(let path, let reason): return "\(path): cannot write: \(reason)"
    case .programNotFound(let name):
      return "\(name): program not found on PATH (install it, or put it on PATH)"
    case .processFailed(let command, let exitCode, let logPath):
      return "\(command): exited with status \(exitCode)" + (logPath.map { " (log: \($0))" } ?? "")
    case .locked(let path, let holder):
      return "\(path): another release is running (\(holder)); wait for it or remove the lock if it is stale"
    }
  }
}
