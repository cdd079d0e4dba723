/**
 * Unknown setup as an input: a setup envelope samples a reproduction's (or a sweep's) declared
 * parameters over their plausible ranges by Latin hypercube ({@link
 * org.lockvisor.studies.envelope.LatinHypercube}, log-uniform where a range spans decades),
 * summarises each simulated quantity over the samples ({@link
 * org.lockvisor.studies.envelope.Spread}) and ranks each parameter's influence on it by partial
 * rank correlation ({@link org.lockvisor.studies.envelope.PartialRankCorrelation}, Marino et
 * al., J. Theor. Biol. 254, 2008). Pure computation: no machine, no I/O.
 */
package org.lockvisor.studies.envelope;
