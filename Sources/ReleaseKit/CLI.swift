import Foundation

public enum CommandLineInterface {
  public static func main(arguments: [String]) -> Int32 { 0 }
}
