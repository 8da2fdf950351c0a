import Foundation
import ReleaseCore
import ReleaseEvaluation
import ReleaseManifest
import ReleaseModels
import ReleaseNetwork
import ReleasePipeline
import ReleasePublishing
import ReleaseSettings
import ReleaseSystem

/// Where `release ota evaluate --outcomes` reads the analytics export from: a file (relative
/// to the project), an `https://` URL (plain `http://` only on this machine) or
/// `s3://<bucket>/<key>` (signed with the `AWS_*` credentials, with `--s3-endpoint` and
/// `--s3-region`, as the model store is). A download goes through the model store's code, is
/// cut off past `maximumSize`, and lands in a temporary file removed after reading.
enum OutcomesSource {
  /// Far more than a daily export of every customer, flow and model version.
  static let maximumSize: Int64 = 64 * 1024 * 1024

  /// The outcomes at `location`, read and checked as a whole before anything is judged or
  /// written; rows of customers other than `customers` and flows other than `flowName` (when
  /// given) are skipped.
  static func outcomes(
    _ location: OutcomesLocation, inputs: InputSettings, customers: [Customer], flowName: String?,
    services: Services, today: OutcomeDate
  ) throws -> Outcomes {
    let (data, source) = try read(location, inputs: inputs, services: services)
    var known: [String: Set<String>] = [:]
    for customer in customers {
      known[customer.id] = Set(
        customer.customModels.map(\.flowName).filter { flowName == nil || $0 == flowName })
    }
    do throws(OutcomesError) {
      return try OutcomesReader.read(data: data, source: source, known: known, today: today)
    } catch {
      throw ReleaseError.invalidInputs(error.problems.map(\.description))
    }
  }

  /// The file's bytes and how messages name it (a URL without its query, which may hold a
  /// presigned signature).
  static func read(
    _ location: OutcomesLocation, inputs: InputSettings, services: Services
  ) throws -> (data: Data, source: String) {
    let option = Options.outcomes.name
    let temporary = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-outcomes-\(UUID().uuidString).csv")
    defer { try? FileManager.default.removeItem(at: temporary) }
    switch location {
    case .file(let path):
      let url = services.resolve(path)
      let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? nil
      guard let size else {
        throw ReleaseError.usage(
          "\(option) \(path): no such file; expected a CSV file, an https:// or s3:// URL")
      }
      guard size <= maximumSize else {
        throw ReleaseError.invalidInput(
          "\(path): \(size) bytes; expected at most \(maximumSize) bytes of outcomes")
      }
      return (try text(of: url, source: path), path)
    case .s3(let source, let bucket, let key):
      let client = try S3Settings.client(
        bucket: bucket, endpoint: inputs.s3Endpoint, region: inputs.s3Region,
        environment: services.environment, purpose: "\(option) \(source)", origins: inputs.origins,
        http: services.http)
      try download(source) { try client.get(key, to: temporary, maximumSize: maximumSize) }
      return (try text(of: temporary, source: source), source)
    case .web(let url):
      let source = ShownURL.text(of: url)
      var request = RemoteModelStore.request(url, maximumSize: maximumSize)
      request.destination = .file(temporary)
      try download(source, hiding: url.query) { _ = try services.http.send(request) }
      return (try text(of: temporary, source: source), source)
    }
  }

  /// Runs `body`, naming its failure by `source`; `hiding` (a URL's query, which may be a
  /// presigned signature) never appears in the message.
  private static func download(_ source: String, hiding secret: String? = nil, _ body: () throws -> Void)
    throws
  {
    do { try body() } catch SystemError.tooLarge {
      throw ReleaseError.invalidInput(
        "\(source): more than \(maximumSize) bytes; expected an outcomes export of at most that size (the download was stopped)"
      )
    } catch let error as ReleaseError {
      throw error
    } catch {
      // Nothing was judged or changed: the input could not be had (exit 2, as a missing file).
      var reason = "\(error)"
      if let secret, !secret.isEmpty { reason = reason.replacingOccurrences(of: secret, with: "…") }
      throw ReleaseError.invalidInput("\(source): cannot download the outcomes: \(reason)")
    }
  }

  /// The bytes; `OutcomesReader` names the line of any that are not UTF-8.
  private static func text(of url: URL, source: String) throws -> Data {
    do { return try Data(contentsOf: url) } catch {
      throw ReleaseError.invalidInput("\(source): cannot read: \(SystemError.reason(error))")
    }
  }
}
