import Foundation
import ReleasePipeline

// The content checks where a merge (`ReleaseRun`, in `ReleaseFlow`) uses them: on the shards'
// releases before they are copied (`CheckArtifactsStep` in `ReleaseFlow` checks what ships).

extension CheckShardsStep {
  /// Checks the shards' releases with the content checks (`ArtifactChecks`).
  package init() {
    self.init(contentChecks: { releases, inputs in
      try ArtifactChecks.problems(of: releases, store: try inputs.storeModels.models(), inputs: inputs)
    })
  }
}
