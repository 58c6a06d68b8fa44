// Package netmodel owns the simulated network between members: per-link
// latency, loss and duplication, cuts and partitions, and the names of the
// reasons a message is dropped (DropReason). It decides two of them as a
// message is sent (Network.Send's Plan): a cut link (DropCut) and loss in
// flight (DropLoss). Package sim decides the others: as the message
// arrives (World.arrival; a stalled member's full queue, World.dispatch),
// a link cut since, a destination down, stalled with a full queue, of
// another cluster, or one that removed the sender; as it is sent, a
// destination that is no member (DropUnknown, World.recordSend); and at a
// crash, the messages a stalled member had queued (member.crash).
//
// It is deterministic: every random choice is drawn from the *rand.Rand the
// caller hands in, in the order the caller asks, and nothing here iterates a
// map. Times are offsets from the start of the simulation (time.Duration),
// never the wall clock.
//
// Links behave like etcd's peer streams: messages on one directed link arrive
// in the order they were sent (FIFO), so a fast message never overtakes a slow
// one on the same link. Different links are independent.
package netmodel
