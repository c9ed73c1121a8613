from srcframework.commands.squad_eval import SquadEval
