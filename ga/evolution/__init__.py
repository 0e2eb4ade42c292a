"""The genetic algorithm: genomes, operators, the generation loop, the final tournament, the refinement."""
