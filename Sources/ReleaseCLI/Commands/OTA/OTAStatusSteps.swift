import Foundation
import ReleaseAlignment
import ReleaseCore
import ReleaseModels
import ReleaseOTA
import ReleasePipeline

/// `release ota status`'s table: what each flow offers over the air, to how many percent, from
/// which SDK version; one customer's flows (slug or app id) or every customer's.
struct ReportOTAStatusStep: RequiredStep {
  let name = "report"
  let customer: String?

  func run(_ inputs: OTAInputs, _ context: ReleaseContext) throws {
    let customers =
      try customer.map { [try inputs.customer($0, command: "ota status")] } ?? inputs.manifest.customers
    var rows = [["CUSTOMER", "FLOW", "BUNDLED", "OFFERED", "PERCENT", "STATUS", "FROM SDK"]]
    for customer in customers {
      for model in customer.customModels {
        let flow = inputs.rollouts.flow(customer.id, model.flowName)
        let offers = flow?.models ?? []
        if offers.isEmpty {
          rows.append([customer.id, model.flowName, "v\(model.modelVersion)", "-", "-", "bundled only", "-"])
        }
        for offer in offers {
          let reference = ModelReference(flowName: model.flowName, version: offer.modelVersion)
          let minimum = (try? inputs.offeredModel(reference)).flatMap {
            ModelAlignment.minimumSDKVersion(inputs: $0.info.inputNames, catalog: inputs.catalog)
          }
          let status =
            offer.status.rawValue
            + (flow?.paused == true && offer.status != .retracted ? " (flow paused)" : "")
          rows.append([
            customer.id, model.flowName, "v\(model.modelVersion)", "v\(offer.modelVersion)",
            "\(offer.rolloutPercent)%",
            status, minimum?.description ?? "unknown",
          ])
        }
      }
    }
    let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
      let line = zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
        .joined(separator: "  ")
      context.services.output.write(
        line: line.trimmingCharacters(in: .whitespaces), to: .standardOutput)
    }
  }
}
