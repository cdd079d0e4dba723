/**
 * The virtio split ring shared by virtio device models: avail and used rings with their u16
 * indexes, notification suppression by flags or by EVENT_IDX, driver-side add / kick_prepare /
 * get_buf / enable_cb and device-side pop / push / need-interrupt.
 */
package org.lockvisor.devices.virtio;
