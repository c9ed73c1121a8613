// Pilot lever "control" (docs/results/e2e_voices.md): the first study's three readings and settings.
(import 'pilot.libsonnet').config('fid2qid_train.csv')
