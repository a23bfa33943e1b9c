package replay

import (
	"fmt"
	"time"

	"github.com/nodeplan/nodeplan/disruption"
)

// heldCommands are consolidation commands waiting for their validation.
type heldCommands struct {
	commands []disruption.Command
	// version is the cluster's when they were decided (see sim.version).
	version int
}

// consolidation reports whether commands are consolidation's (Emptiness, multi-node or
// single-node), which Karpenter validates before it starts them; Decide's commands all come
// from one method.
func consolidation(commands []disruption.Command) bool {
	return len(commands) > 0 && disruption.Validated(commands[0].Method)
}

// hold keeps consolidation commands for disruption.CommandValidationDelay, as Karpenter's
// disruption controller does: it waits, blocking its loop, then validates them.
func (s *sim) hold(commands []disruption.Command) {
	s.held = &heldCommands{commands: commands, version: s.version}
	s.schedule(step{at: s.now.Add(disruption.CommandValidationDelay), kind: stepValidate})
}

// validate starts the held commands that are still valid on the cluster as it is now (see
// disruption.Validate) and abandons the others. The loop then looks again at once, as
// Karpenter's requeues after a command; after an abandoned Emptiness or multi-node command it
// goes on at once with the methods after it (disruption.Input.After), and after an abandoned
// single-node command, its last method, it polls again a DisruptionInterval later. When
// nothing changed since the decision, nor a budget window opened or closed, a command is as
// valid as it was found.
func (s *sim) validate() error {
	h := s.held
	s.held = nil
	if h == nil {
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	decidedAt := s.now.Add(-disruption.CommandValidationDelay)
	started := false
	for _, c := range h.commands {
		if s.version != h.version || s.budgetChangedSince(decidedAt) {
			in, err := s.decisionInput()
			if err != nil {
				return fmt.Errorf("replay: validation at %s: %w", stamp(s.now), err)
			}
			valid, why, err := disruption.Validate(in, c)
			if err != nil {
				return fmt.Errorf("replay: validation at %s: %w", stamp(s.now), err)
			}
			if why != "" {
				s.decisions = append(s.decisions, Decision{Time: s.now, Kind: DecisionAbandon, Method: c.Method,
					Reason: why, Nodes: candidateNames(c)})
				continue
			}
			c = valid
		}
		if err := s.startCommand(c); err != nil {
			return err
		}
		started = true
	}
	next := s.now
	switch method := h.commands[0].Method; {
	case started:
	case method == disruption.MethodSingleNodeConsolidation:
		next = s.now.Add(s.opts.DisruptionInterval)
	default:
		s.resumeAfter = method
	}
	s.disruptDirty = true
	s.disruptAt = next
	s.schedule(step{at: next, kind: stepDisrupt})
	return nil
}

// budgetChangedSince reports whether a NodePool's scheduled budget opened or closed after
// t, up to now.
func (s *sim) budgetChangedSince(t time.Time) bool {
	next, ok := s.nextBudgetChangeAfter(t)
	return ok && !next.After(s.now)
}

func candidateNames(c disruption.Command) []string {
	names := make([]string, len(c.Candidates))
	for i, cand := range c.Candidates {
		names[i] = cand.Node
	}
	return names
}
