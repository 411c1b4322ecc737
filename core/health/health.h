// Fabric health checking engine shared by ibqueryerrors, the ibcheck*
// family, ibclear*, ibdatacount*, ibidsverify and ibswportwatch.
//
//   ibcore::Subnet db = ibcore::obtain_subnet(cfg);
//   ibcore::health::PmSession ses(cfg);
//   ses.pm().use_subnet(&db);
//   ibcore::health::PortScanOptions o;  // the fabric counter scan (scan.h)
//   o.want = ibcore::health::data_groups();
//   ibcore::health::PortScan scan(ses.pm(), o);
//   std::vector<ibcore::health::PortRow> rows{ibcore::health::PortScan::row(db, node, port)};
//   scan.spawn(db, rows);
//   ses.sched().run();  // rows[0].c: the port's counters, or why not
//
// PM MADs (GMPs) need a full path: PmAccess asks the SA for a PathRecord
// once per destination LID (concurrent askers of the same LID wait for the
// one query in flight) and caches it; the SL is never assumed (skip_sl uses
// SL 0 without asking, as the reference's --skip-sl does).
//
// The static checks (port state, link width/speed against both ends,
// duplicate GUIDs and LIDs with LMC) work on the subnet database alone and
// return Findings; the commands print them.
//
// The fabric counter scan itself (which ports, which LID, the read-ahead,
// the threshold test, details and clears) is core/health/scan.h: every
// counter-reading command consumes its rows.
//
// The engine is five modules, each with one concern: core/health/counters.h
// (counters, thresholds), core/health/pmaccess.h (PM access and sessions),
// core/health/pmscrape.h (the fabric counter scan every command reads and
// clears counters through), core/health/checks.h (static checks, findings, target lookup, names) and
// core/health/baseline.h (links against a healthy subnet).  This header gathers
// them for the commands that use the whole engine.
#pragma once

#include "core/health/baseline.h"
#include "core/health/checks.h"
#include "core/health/counters.h"
#include "core/health/pmaccess.h"
#include "core/health/pmscrape.h"
#include "core/health/scan.h"
