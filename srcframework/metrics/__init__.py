from srcframework.metrics.squad_em_f1 import SquadEmAndF1
