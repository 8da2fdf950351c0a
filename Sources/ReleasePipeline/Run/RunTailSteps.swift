import Foundation

// The steps of a run's tail that this module declares beside where they publish
// (`Steps/Publish/`), as `ReleaseRun` (in `ReleaseFlow`) chains them; the content checks are
// `ReleaseVerification`'s.
extension Pipeline {
  /// Publishing what ships to every destination of the run (`PublishStep`).
  package func publish(_ results: RunResults) throws { try run(PublishStep(), results) }
}

extension PublishStep {
  /// The publish step's name, as the run's events show it.
  package static var stepName: String { PublishStep().name }
}
