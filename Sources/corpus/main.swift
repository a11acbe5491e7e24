import CorpusClientCLI
import Foundation

#if DEBUG
CrashTestHarness.installIfArmed()
#endif
exit(await ClientProgram.main(CommandLine.arguments))
