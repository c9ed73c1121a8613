// What a recipe's study reads of its recipe.jsonnet, so that the model list is written once:
//   local recipe = import 'recipe.libsonnet';
//   local trainings = (import 'recipe.jsonnet')().trainings;
//   models: { bidaf: { archives: recipe.archives(trainings.bidaf_clean), batch_size: 40 } }
{
  // the model.tar.gz of each seed of a training (its folder, {seed} replaced), in seed order
  archives(training)::
    if std.objectHas(training, 'seeds') then
      [std.strReplace(training.folder, '{seed}', std.toString(seed)) + '/model.tar.gz' for seed in training.seeds]
    else [training.folder + '/model.tar.gz'],
}
