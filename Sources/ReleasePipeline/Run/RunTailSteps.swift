import Foundation

// The steps of a run's tail that this module declares beside what they check and where they
// publish (`Verify/`, `Steps/Publish/`), as `ReleaseRun` (in `ReleaseFlow`) chains them.
extension Pipeline {
  /// The content checks of every release that ships (`CheckArtifactsStep`).
  package func checkArtifacts(_ results: RunResults) throws { try run(CheckArtifactsStep(), results) }

  /// Publishing what ships to every destination of the run (`PublishStep`).
  package func publish(_ results: RunResults) throws { try run(PublishStep(), results) }
}

extension PublishStep {
  /// The publish step's name, as the run's events show it.
  package static var stepName: String { PublishStep().name }
}
