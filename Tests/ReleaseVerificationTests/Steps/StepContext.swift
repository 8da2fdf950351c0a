import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport

/// A context for building one step directly: the root given, output captured, a process
/// runner that fails the test on any call not scripted, and events recorded.
struct StepContext {
  let output = CapturedOutput()
  let runner = ScriptedProcessRunner()
  let reporter = RecordingReporter()
  let context: ReleaseContext

  init(root: URL, environment: [String: String] = [:]) {
    context = ReleaseContext(
      services: Services(
        processRunner: runner, clock: ManualClock(), root: root, environment: environment, output: output,
        http: TestHTTP.Unreachable()),
      settings: RunSettings(), reporter: reporter)
  }

  var pipeline: Pipeline { Pipeline(context) }
}
