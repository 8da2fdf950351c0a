/// The tool's own identity; part of every input digest so a new tool rebuilds.
package enum ReleaseTool {
  package static let name = "release"
  package static let version = "0.6.0"
}
