/**
 * The experiment module: the experiment model ({@code model}: code-first builder and YAML, one
 * validation, the {@code PluginRegistry} that turns names into plugins), the runner ({@code
 * runner}: one experiment in, one finished result out), run checks ({@code check}) and atomic
 * files ({@code io}). This root package holds only the two failures every layer above reports
 * alike: {@link org.lockvisor.experiment.UserInputException} (a mistake in the user's input, exit
 * status 2) and {@link org.lockvisor.experiment.SimulationFailedException}. It depends on no other
 * package of the module. Plain Java: no Guice (the composition root is the CLI's {@code inject}).
 */
package org.lockvisor.experiment;
