import Foundation
import ReleaseGeneration
import ReleaseManifest
import ReleaseSystem

/// Generates the customer's source package from the template into scratch space
/// (`<cache>/packages/<id>/<PackageName>`), embedding exactly the customer's models.
package struct GenerateStep: CustomerStep {
  package let name = "generate"
  package let inputs: ReleaseInputs

  package init(inputs: ReleaseInputs) { self.inputs = inputs }

  package func run(_ job: CustomerJob, for _: CustomerJob, _ context: ReleaseContext) throws
    -> GeneratedSource
  {
    let scratch = context.cacheDirectory.appendingPathComponent("packages").appendingPathComponent(job.id)
    try? FileManager.default.removeItem(at: scratch)
    let packageDirectory = scratch.appendingPathComponent(job.customer.packageName)
    try AtomicFile.createDirectory(scratch)
    let input = inputs.generationInput(for: job)
    _ = try PackageGenerator.generate(input, template: inputs.template, into: packageDirectory)
    return GeneratedSource(directory: packageDirectory)
  }
}

/// A customer's generated source package, in scratch space.
package struct GeneratedSource: Sendable {
  package var directory: URL
}
