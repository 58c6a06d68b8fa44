package raftsrc

// decisions is the index of the lines of raft's source that raftsim cites
// for decisions raft makes without logging them (sim's why.go): one a
// line, file, function, the line's code (trimmed) and its number, tab
// separated. It is tiny and in every build, so that a build without the
// source (the web page's) cites them as a build with it does, without
// fetching the source; TestDecisionsIndex holds it to the source.
const decisions = "" +
	"log.go\t(*raftLog).maybeCommit\tif at.term != 0 && at.index > l.committed && l.matchTerm(at) {\t459\n" +
	"log.go\t(*raftLog).maybeAppend\tl.commitTo(min(committed, lastnewi))\t129\n" +
	"raft.go\t(*raft).handleHeartbeat\tr.raftLog.commitTo(m.GetCommit())\t1836\n" +
	"log.go\t(*raftLog).restore\tl.committed = s.GetMetadata().GetIndex()\t468\n" +
	"raft.go\t(*raft).appendEntry\tli = r.raftLog.append(cloned...)\t834\n" +
	"raft.go\t(*raft).handleAppendEntries\tif mlastIndex, ok := r.raftLog.maybeAppend(a, m.GetCommit()); ok {\t1800\n"
