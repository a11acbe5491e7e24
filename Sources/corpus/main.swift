import CorpusCLI
import Foundation

#if DEBUG
CrashTestHarness.installIfArmed()
#endif
exit(await CorpusCommand.main(CommandLine.arguments))
