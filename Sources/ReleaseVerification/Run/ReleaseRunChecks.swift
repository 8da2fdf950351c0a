import Foundation
import ReleasePipeline

// The content checks where a release run (`ReleaseRun`, in `ReleaseFlow`) uses them: on what
// ships before it is published, and on a merge's shards before they are copied.

extension Pipeline {
  /// The content checks of every release that ships (`CheckArtifactsStep`).
  package func checkArtifacts(_ results: RunResults) throws { try run(CheckArtifactsStep(), results) }
}

extension CheckShardsStep {
  /// Checks the shards' releases with the content checks (`ArtifactChecks`).
  package init() {
    self.init(contentChecks: { releases, inputs in
      try ArtifactChecks.problems(of: releases, store: try inputs.storeModels.models(), inputs: inputs)
    })
  }
}
