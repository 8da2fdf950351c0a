import Foundation
import ReleasePipeline

/// `release verify`, for each release: reads its release.json and says which release it is
/// checking. One that cannot be read fails that release; the others are still verified.
package struct ReadRecordStep: RequiredStep {
  package let name = "read release.json"
  let inputs: VerifyInputs

  package init(inputs: VerifyInputs) { self.inputs = inputs }

  package func run(_ location: ReleaseLocation, _ context: ReleaseContext) throws -> ReleaseFindings {
    let output = context.services.output
    let directory = location.directory
    let record: ReleaseRecord
    do {
      record = try ReleaseRecord.load(from: directory.appendingPathComponent(ReleaseRecord.fileName))
    } catch {
      output.write(line: "verify \(directory.path)", to: .standardOutput)
      return ReleaseFindings(location: location, problems: ["\(error)"])
    }
    output.write(
      line: "verify \(record.customer.id) \(record.version) (\(directory.path))", to: .standardOutput)
    return ReleaseFindings(
      location: location, record: record, customer: inputs.manifest.customer(matching: record.customer.id))
  }
}
