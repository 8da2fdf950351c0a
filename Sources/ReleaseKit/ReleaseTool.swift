/// The tool's own identity; part of every input digest so a new tool rebuilds.
public enum ReleaseTool {
  public static let name = "release"
  public static let version = "0.6.0"
}
