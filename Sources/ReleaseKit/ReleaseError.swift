import Foundation
import ReleaseManifest
import ReleaseSystem

/// The tool's top-level failures and their exit codes: 2 for bad input (arguments, manifest,
/// models, state), 1 for everything that went wrong while doing valid work.
public enum ReleaseError: Error, CustomStringConvertible {
  /// A bad argument; the message names it, what was found and what was expected.
  case usage(String)
  /// Bad input found before any work started, as one line.
  case invalidInput(String)
  /// Every problem found in the manifest and the model store, in one run.
  case validation(ValidationFailure)
  /// One or more customers failed; their details were reported as they happened.
  case customersFailed([String])
  /// A step that is not per customer failed (publishing, tagging, writing state).
  case stepFailed(step: String, reason: String)

  public var exitCode: Int32 {
    switch self {
    case .usage, .invalidInput, .validation: return 2
    case .customersFailed, .stepFailed: return 1
    }
  }

  public var description: String {
    switch self {
    case .usage(let message), .invalidInput(let message): return message
    case .validation(let failure): return failure.description
    case .customersFailed(let ids):
      return "\(ids.count) customer\(ids.count == 1 ? "" : "s") failed: \(ids.joined(separator: ", "))"
    case .stepFailed(let step, let reason): return "\(step): \(reason)"
    }
  }
}
