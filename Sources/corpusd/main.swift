import CorpusServerCLI
import Foundation

exit(await ServerProgram.main(CommandLine.arguments))
