// Package export turns a run's history into pictures and logs for other
// tools: a space-time (Lamport) diagram as SVG, and a log with vector
// clocks that ShiViz reads. Like the experiments, it reads the world and
// its history, never the window.
package export
