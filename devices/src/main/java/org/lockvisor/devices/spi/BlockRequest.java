package org.lockvisor.devices.spi;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * A block request ({@code struct request} with its driver payload), owned by a workload slot
 * and reused for every I/O of that slot. The workload fills direction, sector and size before
 * submitting; the device keeps its per-request state in {@link #driverData()}.
 */
public final class BlockRequest {

  /** Data direction. */
  public enum Direction { READ, WRITE }

  private final BlockCompletion completion;
  private final Object driverData;
  private Direction direction = Direction.READ;
  private long sector;
  private int bytes = 4096;
  private long submitNs;
  private long completeNs;
  /** Free for the owning workload (e.g. its job). */
  public Object owner;

  /** For device implementations: {@code driverData} is the device's per-request state. */
  public BlockRequest(BlockCompletion completion, Object driverData) {
    checkArgument(completion != null, "completion must be set");
    this.completion = completion;
    this.driverData = driverData;
  }

  public BlockRequest set(Direction direction, long sector, int bytes) {
    checkArgument(bytes > 0, "bytes must be positive: %s", bytes);
    this.direction = direction;
    this.sector = sector;
    this.bytes = bytes;
    return this;
  }

  public Direction direction() {
    return direction;
  }

  public long sector() {
    return sector;
  }

  public int bytes() {
    return bytes;
  }

  public BlockCompletion completion() {
    return completion;
  }

  public Object driverData() {
    return driverData;
  }

  /** When the workload submitted it (set by the workload). */
  public long submitNs() {
    return submitNs;
  }

  public void markSubmitted(long ns) {
    this.submitNs = ns;
  }

  /** When the completion path completed it (set by the device). */
  public long completeNs() {
    return completeNs;
  }

  public void markCompleted(long ns) {
    this.completeNs = ns;
  }
}
