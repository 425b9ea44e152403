// Package adaptive is the repetition that the lab and the campaign share:
// after the planned boots, when to add a round and which configurations it
// boots (Policy), and how many boots and repetitions it gets from the
// variance components and the costs measured so far (Allocate).
package adaptive
