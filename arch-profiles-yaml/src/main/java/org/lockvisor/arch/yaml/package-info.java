/**
 * Arch profiles written in YAML ({@link org.lockvisor.arch.yaml.ArchProfileYaml}): a file names a
 * built-in profile to extend and overrides costs (with their sources), topology and hypervisor
 * behaviour. Jackson is confined to this package and module, apart from the SPI plugins build on.
 */
package org.lockvisor.arch.yaml;
