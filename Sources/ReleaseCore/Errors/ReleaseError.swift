import Foundation
import ReleaseJSON
import ReleaseSystem

/// The tool's top-level failures and their exit codes: 2 for bad input (arguments, manifest,
/// models, state), 1 for everything that went wrong while doing valid work.
package enum ReleaseError: Error, CustomStringConvertible {
  /// A bad argument; the message names it, what was found and what was expected.
  case usage(String)
  /// Bad input found before any work started, as one line.
  case invalidInput(String)
  /// Several problems of bad input found before any work started, one line each.
  case invalidInputs([String])
  /// Every problem found in the manifest and the model store, in one run.
  case validation(ValidationFailure)
  /// One or more customers failed; their details were reported as they happened.
  case customersFailed([String])
  /// A step that is not per customer failed (publishing, tagging, writing state).
  case stepFailed(step: String, reason: String)
  /// A step that is not per customer failed for several reasons, one line each.
  case stepProblems(step: String, problems: [String])

  package var exitCode: Int32 {
    switch self {
    case .usage, .invalidInput, .invalidInputs, .validation: return 2
    case .customersFailed, .stepFailed, .stepProblems: return 1
    }
  }

  package var description: String { lines.joined(separator: "\n") }

  /// The message as printed, one line each: the lines are the tool's, so a line break inside
  /// a value from outside (shown escaped) never passes for one of them.
  package var lines: [String] {
    switch self {
    case .usage(let message), .invalidInput(let message): return [message]
    case .invalidInputs(let lines): return lines
    case .validation(let failure): return failure.diagnostics.map(\.description)
    case .customersFailed(let ids):
      return ["\(ids.count) customer\(ids.count == 1 ? "" : "s") failed: \(ids.joined(separator: ", "))"]
    case .stepFailed(let step, let reason): return ["\(step): \(reason)"]
    case .stepProblems(let step, let problems):
      return ["\(step): \(problems.first ?? "failed")"] + problems.dropFirst()
    }
  }

  /// Runs `body`; an error `message` gives a line for is bad input found before any work (exit
  /// 2: `invalidInput` with that line), any other is rethrown as it is.
  package static func badInput<T>(when message: (any Error) -> String?, _ body: () throws -> T) throws -> T {
    do { return try body() } catch {
      if let line = message(error) { throw ReleaseError.invalidInput(line) }
      throw error
    }
  }

  /// Bad input (exit 2) found by a check that runs before any work.
  package var isInvalidInput: Bool {
    switch self {
    case .invalidInput, .invalidInputs: return true
    default: return false
    }
  }
}
